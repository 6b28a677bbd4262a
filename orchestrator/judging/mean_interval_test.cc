#include "judging/mean_interval.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "judging/mean_interval_calibration.h"

namespace storbed {
namespace {

using ::testing::HasSubstr;

std::vector<double> Ar1(double phi, size_t n, uint64_t seed) {
  SeededDraws draws(seed);
  return DrawSeries({.phi = phi}, n, draws);
}

TEST(MeanInterval, ConstantSamplesGetNoIntervalAndSayWhy) {
  // Regression: 20 samples of 3 gave "+/- 0" as a 95% interval; no spread measures nothing.
  const MeanInterval m = MeanInterval95(std::vector<double>(20, 3.0));
  EXPECT_FALSE(m.available);
  EXPECT_EQ(m.mean, 3.0);
  EXPECT_EQ(m.samples, 20u);
  EXPECT_THAT(m.basis, HasSubstr("all 20 samples were 3: no spread"));
}

TEST(MeanInterval, NoneOrOneSampleGetsNoInterval) {
  EXPECT_FALSE(MeanInterval95({}).available);
  const MeanInterval one = MeanInterval95({1.0});
  EXPECT_FALSE(one.available);
  EXPECT_EQ(one.mean, 1.0);
  EXPECT_THAT(one.basis, HasSubstr("one sample"));
}

TEST(MeanInterval, ANonFiniteSampleGetsNoInterval) {
  const MeanInterval m = MeanInterval95({1, 2, std::nan(""), 3});
  EXPECT_FALSE(m.available);
  EXPECT_THAT(m.basis, HasSubstr("not a finite number"));
}

TEST(MeanInterval, IndependentSamplesGetANearlyClassicalInterval) {
  const std::vector<double> x = Ar1(0, 400, 7);
  const MeanInterval m = MeanInterval95(x);
  ASSERT_TRUE(m.available) << m.basis;
  double ss = 0;
  for (double v : x) ss += (v - m.mean) * (v - m.mean);
  const double classical = 1.966 * std::sqrt(ss / 399 / 400);  // t on 399 df
  // The two-standard-error raise of the autocorrelation costs at most ~35% at n = 400.
  EXPECT_GE(m.half_width, classical);
  EXPECT_LE(m.half_width, 1.35 * classical);
  EXPECT_GT(m.effective_samples, 200);
  EXPECT_THAT(m.basis, HasSubstr("400 point samples, about"));
}

TEST(MeanInterval, SparseZeroOneSamplesOfTheIssueAreRefused) {
  // The issue's virtqueue rung: 20 samples of 0 or 1 in two runs of three ones. Regression:
  // 10 batch means of two gave 0.3 +/- 0.30 as a 95% interval; 20 samples this alike hold
  // fewer than 10 independent ones, so there is no interval and the basis says why.
  std::vector<double> s;
  for (int i = 0; i < 20; ++i) s.push_back(i % 10 < 3 ? 1.0 : 0.0);
  const MeanInterval m = MeanInterval95(s);
  EXPECT_FALSE(m.available);
  EXPECT_NEAR(m.mean, 0.3, 1e-12);
  EXPECT_LT(m.effective_samples, kMinEffectiveSamples);
  EXPECT_THAT(m.basis, HasSubstr("effective samples of 20"));
  EXPECT_THAT(m.basis, HasSubstr("too few for a 95% interval, which needs 10"));
}

TEST(MeanInterval, StronglyCorrelatedSamplesAreRefusedWithAdviceTheUserCanActOn) {
  const MeanInterval m = MeanInterval95(Ar1(0.93, 60, 3));
  EXPECT_FALSE(m.available);
  EXPECT_GT(m.autocorrelation, 0.6);
  EXPECT_THAT(m.basis, HasSubstr("effective sample"));
  EXPECT_THAT(m.basis, HasSubstr(" of 60 (lag-1 autocorrelation 0."));
  EXPECT_THAT(m.basis, HasSubstr("a longer job gives more"));
}

TEST(MeanInterval, TwentyIndependentSamplesCannotShowTheyAreIndependent) {
  // Their lag-1 autocorrelation is near 0, but 20 samples leave room for 0.45: the rule
  // counts that, which leaves 7 effective samples, short of 10.
  const MeanInterval m = MeanInterval95(Ar1(0, 20, 5));
  EXPECT_FALSE(m.available);
  EXPECT_LT(m.effective_samples, kMinEffectiveSamples);
  EXPECT_THAT(m.basis, HasSubstr("within that figure's error: too few to be sure of the 10 a 95% "
                                 "interval needs; more samples (a shorter sample period or a "
                                 "longer job) give more"));
}

TEST(MeanInterval, ACountThatFlipsAFewTimesIsRefusedWhateverItsLength) {
  // 1000 samples of an idle queue with four blips of two: neighbours look only half alike,
  // but the mean rests on nine stretches, not on hundreds of samples' worth. Regression:
  // 10 batch means gave 0.008 +/- 0.007 as a 95% interval.
  std::vector<double> x(1000, 0.0);
  for (int at : {100, 300, 500, 700}) x[at] = x[at + 1] = 1;
  const MeanInterval m = MeanInterval95(x);
  EXPECT_FALSE(m.available);
  EXPECT_GT(m.effective_samples, kMinEffectiveSamples);
  EXPECT_EQ(m.runs, 9u);
  EXPECT_THAT(m.basis, HasSubstr("in only 9 stretches: too few for a 95% interval"));
  // One long stretch of ones: neighbours are alike, so too few effective samples.
  std::vector<double> block(1000, 0.0);
  for (int i = 300; i < 500; ++i) block[i] = 1;
  EXPECT_THAT(MeanInterval95(block).basis,
              HasSubstr("less than 1 effective sample of 1000 (lag-1 autocorrelation 1.00)"));
}

TEST(MeanInterval, SlowlyMovingSamplesGetAWiderIntervalThanShuffledOnes) {
  // The same values in order and shuffled by a fixed permutation: the ordered ones move
  // slowly, so their interval is wider.
  const std::vector<double> slow = Ar1(0.8, 1000, 11);
  std::vector<double> shuffled = slow;
  SeededDraws d(5);
  for (size_t i = shuffled.size() - 1; i > 0; --i) std::swap(shuffled[i], shuffled[d.Below(i + 1)]);
  const MeanInterval a = MeanInterval95(slow), b = MeanInterval95(shuffled);
  ASSERT_TRUE(a.available) << a.basis;
  ASSERT_TRUE(b.available) << b.basis;
  EXPECT_GT(a.half_width, 2 * b.half_width);
}

TEST(MeanInterval, ADriftTheLagOneFigureMissesShowsInTheBatchMeans) {
  // Fast noise on a slow sine: neighbours hardly alike, yet the mean of any stretch wanders.
  std::vector<double> x = Ar1(0, 2000, 13);
  for (size_t i = 0; i < x.size(); ++i) x[i] += 1.5 * std::sin(double(i) * 2 * M_PI / 700);
  const MeanInterval m = MeanInterval95(x);
  ASSERT_TRUE(m.available) << m.basis;
  EXPECT_THAT(m.basis, HasSubstr("the batch means drift slower"));
  EXPECT_LE(m.df, 9);
}

TEST(MeanInterval, NoIntervalFromFewerEffectiveSamplesOrRunsThanTheMinimum) {
  for (double phi : {0.0, 0.5, 0.9, 0.99})
    for (size_t n : {20, 50, 100, 200, 1000}) {
      SeededDraws draws(DerivedSeed(17, n, size_t(phi * 100)));
      for (int rep = 0; rep < 50; ++rep) {
        const MeanInterval m = MeanInterval95(DrawSeries({.phi = phi}, n, draws));
        ASSERT_FALSE(m.basis.empty());
        if (!m.available) continue;
        EXPECT_GE(m.effective_samples, kMinEffectiveSamples) << m.basis;
        EXPECT_GE(m.runs, kMinRuns) << m.basis;
        EXPECT_GT(m.half_width, 0) << m.basis;
      }
    }
}

// Seeded coverage against a known mean, 2000 series a cell. Where the series hold about
// as few effective samples as the minimum or fewer (AR(1) 0.9 at n = 100 and 200: 5 and
// 10.5) nearly all are refused, and the intervals given anyway may not add more than 1%
// of all series as misses.
constexpr size_t kReplicates = 2000;

CoverageResult Measure(const SampleProcess& p, size_t n) {
  return MeasureCoverage(p, n, kReplicates, DerivedSeed(1, n, uint64_t(p.phi * 1000 + p.on * 1e6)));
}

void ExpectCovers(const SampleProcess& p, size_t n, double max_refused) {
  const CoverageResult c = Measure(p, n);
  EXPECT_GE(c.Coverage(), 0.90) << "phi " << p.phi << " n " << n;
  EXPECT_LE(c.Refused(), max_refused) << "phi " << p.phi << " n " << n;
}

void ExpectRefuses(const SampleProcess& p, size_t n, double min_refused) {
  const CoverageResult c = Measure(p, n);
  EXPECT_GE(c.Refused(), min_refused) << "phi " << p.phi << " n " << n;
  EXPECT_LE(double(c.given - c.covered), 0.01 * kReplicates) << "phi " << p.phi << " n " << n;
}

TEST(MeanIntervalCoverage, Ar1Phi09) {
  ExpectRefuses({.phi = 0.9}, 100, 0.95);
  // The 4% given at n = 200 cover 0.91 over 10000 series (storbed-calibrate); 80 of them
  // are too few to assert that here.
  ExpectRefuses({.phi = 0.9}, 200, 0.90);
  ExpectCovers({.phi = 0.9}, 1000, 0.05);
}

TEST(MeanIntervalCoverage, IndependentAndModeratelyCorrelatedSamples) {
  for (size_t n : {100, 200, 1000}) ExpectCovers({.phi = 0}, n, 0.0);
  ExpectCovers({.phi = 0.5}, 200, 0.05);
  ExpectCovers({.phi = 0.5}, 1000, 0.0);
}

TEST(MeanIntervalCoverage, NearlyConstantProcessIsRefused) {
  ExpectRefuses({.phi = 0.99}, 1000, 0.95);
}

TEST(MeanIntervalCoverage, ZeroOneCountThatFlipsRarely) {
  // On 2% of samples, off 5%: mean 0.29, lag-1 autocorrelation 0.93, about 36 effective
  // samples in 1000, and 3.6 in 100.
  const SampleProcess flips{.on_off = true, .on = 0.02, .off = 0.05};
  ExpectRefuses(flips, 100, 0.95);
  ExpectCovers(flips, 1000, 0.05);
}

}  // namespace
}  // namespace storbed

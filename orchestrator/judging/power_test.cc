#include "judging/power.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "judging/seeded_draws.h"

namespace storbed {
namespace {

// With a spread known almost exactly (a huge df), the paired design's power is the
// noncentral t's: P(T'(n-1, delta sqrt(n) / sigma) > t_crit) on the side of the change.
TEST(Power, PairedMatchesTheNoncentralT) {
  const size_t n = 8;
  const double sigma = 0.07, level = 0.01, margin = 0.02, shift = 0.11;
  const PowerQuery q{Design::Paired, n, n, sigma, 100000, margin, level};
  const boost::math::students_t t(double(n - 1));
  const double tc = boost::math::quantile(boost::math::complement(t, level / 2));
  const boost::math::non_central_t nct(double(n - 1),
                                       (shift - margin) / sigma * std::sqrt(double(n)));
  const double exact = boost::math::cdf(boost::math::complement(nct, tc));
  EXPECT_NEAR(PowerAt(q, shift), exact, 0.02);  // 4000 draws: standard error 0.008
}

TEST(Power, TheResolvableShiftHasThePowerAskedFor) {
  for (const Design design : {Design::Unpaired, Design::Paired, Design::Night}) {
    for (const size_t n : {5u, 10u, 20u}) {
      const PowerQuery q{design, n, n, 0.1, 2 * n - 2, 0.02, 0.01};
      const auto shift = ResolvableShift(q);
      ASSERT_TRUE(shift) << ToString(design) << " " << n;
      EXPECT_GT(*shift, 0.02);
      // Power at the printed size, the spread's uncertainty included: 0.8 up to the draws'
      // own granularity.
      EXPECT_NEAR(PowerAt(q, *shift), 0.8, 0.01) << ToString(design) << " " << n;
    }
  }
}

TEST(Power, NothingIsResolvableWhereTheLevelIsOutOfReach) {
  // 5 v 5 cannot give p below 2/252 = 0.0079: at 0.001 nothing is called.
  const PowerQuery q{Design::Unpaired, 5, 5, 0.05, 8, 0.02, 0.001};
  EXPECT_FALSE(ResolvableShift(q));
  EXPECT_EQ(PowerAt(q, 1.0), 0);
  EXPECT_EQ(RunsToReach(Design::Unpaired, 0.01), 5u);       // 2/252 < 0.01 <= 2/70
  EXPECT_EQ(RunsToReach(Design::Unpaired, 0.01 / 27), 8u);  // 2/12870 < 0.00037 <= 2/3432
  EXPECT_EQ(RunsToReach(Design::Paired, 0.0001), 3u);
  // No spread, no figure: a spread of 0 resolves nothing honestly.
  EXPECT_FALSE(ResolvableShift({Design::Unpaired, 10, 10, 0, 18, 0.02, 0.01}));
}

TEST(Power, RunsNeededIsTheFirstNWithEnoughPower) {
  const PowerQuery q{Design::Unpaired, 5, 5, 0.05, 8, 0.02, 0.01 / 27};
  const double shift = -std::log(0.9);
  const auto n = RunsNeeded(q, shift);
  ASSERT_TRUE(n);
  PowerQuery at = q;
  at.n_base = at.n_cand = *n;
  EXPECT_GE(PowerAt(at, shift), 0.8);
  at.n_base = at.n_cand = *n - 1;
  EXPECT_LT(PowerAt(at, shift), 0.8);
  EXPECT_FALSE(RunsNeeded(q, 0.01));  // inside the margin: never called
  // A change much larger than the spread is seen as soon as a verdict is reachable.
  EXPECT_EQ(RunsNeeded({Design::Unpaired, 5, 5, 0.01, 8, 0.02, 0.01}, 0.5), 5u);
}

TEST(Power, IsReproducible) {
  const PowerQuery q{Design::Unpaired, 7, 6, 0.08, 11, 0.02, 0.005};
  EXPECT_EQ(ResolvableShift(q), ResolvableShift(q));
  SeededDraws a(3), b(3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.Normal(), b.Normal());
}

}  // namespace
}  // namespace storbed

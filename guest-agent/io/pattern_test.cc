#include "pattern.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace storbed {
namespace {

std::vector<uint64_t> Take(OffsetGenerator& g, uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < n; ++i) out.push_back(g.Next());
  return out;
}

TEST(PatternTest, SequentialWrapsToTheNextPass) {
  auto g = MakeSequential({.offset = 8192, .size = 3 * 4096 + 100, .bs = 4096});
  EXPECT_EQ(g->blocks_per_pass(), 3u);
  EXPECT_EQ(Take(*g, 5), (std::vector<uint64_t>{8192, 12288, 16384, 8192, 12288}));
}

TEST(PatternTest, GappyReadTwoSkipThree) {
  auto g = MakeGappy({.offset = 0, .size = 12 * 4096, .bs = 4096}, 2, 3);
  // Blocks 0,1 | skip 2,3,4 | 5,6 | skip 7,8,9 | 10,11
  EXPECT_EQ(g->blocks_per_pass(), 6u);
  EXPECT_EQ(Take(*g, 7), (std::vector<uint64_t>{0, 4096, 20480, 24576, 40960, 45056, 0}));
}

TEST(PatternTest, GappyPartialLastGroupAndRegionOffset) {
  // 11 blocks, read 2 skip 3: groups at 0, 5, 10 -> block 10 alone in the last group.
  auto g = MakeGappy({.offset = 1 << 20, .size = 11 * 512, .bs = 512}, 2, 3);
  EXPECT_EQ(g->blocks_per_pass(), 5u);
  const uint64_t o = 1 << 20;
  EXPECT_EQ(Take(*g, 6),
            (std::vector<uint64_t>{o, o + 512, o + 5 * 512, o + 6 * 512, o + 10 * 512, o}));
}

TEST(PatternTest, GappySkipZeroIsSequential) {
  auto g = MakeGappy({.offset = 0, .size = 4 * 4096, .bs = 4096}, 1, 0);
  EXPECT_EQ(Take(*g, 4), (std::vector<uint64_t>{0, 4096, 8192, 12288}));
}

TEST(PatternTest, RandomVisitsEachBlockOncePerPass) {
  for (uint64_t blocks : {1u, 2u, 3u, 7u, 64u, 100u, 1000u, 4097u, 65536u}) {
    const Region r{.offset = 4096, .size = blocks * 4096, .bs = 4096};
    auto g = MakeRandom(r, 42);
    ASSERT_EQ(g->blocks_per_pass(), blocks);
    for (int pass = 0; pass < 2; ++pass) {
      std::set<uint64_t> seen;
      for (uint64_t i = 0; i < blocks; ++i) {
        const uint64_t off = g->Next();
        ASSERT_EQ(off % 4096, 0u);
        ASSERT_GE(off, r.offset);
        ASSERT_LT(off, r.offset + r.size);
        ASSERT_TRUE(seen.insert(off).second) << "offset " << off << " twice in pass " << pass
                                             << " of " << blocks << " blocks";
      }
      EXPECT_EQ(seen.size(), blocks);
    }
  }
}

// fio rw=randread:3: runs of 3 blocks in a row from random run starts; every block once
// per pass, the short last run included, and the run order changes from pass to pass.
TEST(PatternTest, RandomRunsAreInARowAndCoverEachBlockOncePerPass) {
  const Region r{.offset = 8192, .size = 100 * 512, .bs = 512};  // 33 runs of 3, one of 1
  auto g = MakeRandomRuns(r, 3, 9);
  ASSERT_EQ(g->blocks_per_pass(), 100u);
  std::vector<std::vector<uint64_t>> passes;
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<uint64_t> offsets = Take(*g, 100);
    std::set<uint64_t> seen(offsets.begin(), offsets.end());
    EXPECT_EQ(seen.size(), 100u);
    EXPECT_EQ(*seen.begin(), r.offset);
    EXPECT_EQ(*seen.rbegin(), r.offset + 99 * 512);
    size_t starts = 0;  // IOs that do not follow the one before
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (i > 0 && offsets[i] == offsets[i - 1] + 512) continue;
      ++starts;
      const uint64_t block = (offsets[i] - r.offset) / 512;
      EXPECT_EQ(block % 3, 0u) << "a run starts at block " << block;
    }
    // 34 runs; two may happen to follow each other.
    EXPECT_GE(starts, 25u);
    EXPECT_LE(starts, 34u);
    passes.push_back(offsets);
  }
  EXPECT_NE(passes[0], passes[1]);
}

TEST(PatternTest, RandomRunOfOneIsRandom) {
  const Region r{.offset = 0, .size = 64 * 4096, .bs = 4096};
  auto runs = MakeRandomRuns(r, 1, 5), plain = MakeRandom(r, 5);
  EXPECT_EQ(Take(*runs, 64), Take(*plain, 64));
  EXPECT_THROW(MakeRandomRuns(r, 0, 5), std::invalid_argument);
}

TEST(PatternTest, RandomIsReproducibleBySeed) {
  const Region r{.offset = 0, .size = 1000 * 4096, .bs = 4096};
  auto a = MakeRandom(r, 7), b = MakeRandom(r, 7), c = MakeRandom(r, 8);
  const auto first = Take(*a, 1000);
  EXPECT_EQ(first, Take(*b, 1000));
  EXPECT_NE(first, Take(*c, 1000));
  // The second pass is a different order from the first.
  EXPECT_NE(first, Take(*a, 1000));
}

TEST(PatternTest, RandomIsNotSequential) {
  auto g = MakeRandom({.offset = 0, .size = 1000 * 4096, .bs = 4096}, 1);
  int ascending = 0;
  uint64_t prev = g->Next();
  for (int i = 1; i < 1000; ++i) {
    const uint64_t off = g->Next();
    ascending += off == prev + 4096;
    prev = off;
  }
  EXPECT_LT(ascending, 20);
}

TEST(PatternTest, RandomWorksOnHugeRegionsWithoutMemory) {
  // 2^40 blocks: a stored shuffle could never fit; a permutation answers at once.
  auto g = MakeRandom({.offset = 0, .size = uint64_t(1) << 52, .bs = 4096}, 3);
  std::set<uint64_t> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(g->Next());
  EXPECT_EQ(seen.size(), 10000u);
}

TEST(PatternTest, FactoryFollowsSpec) {
  JobSpec spec;
  spec.offset = 4096;
  spec.bs = 4096;
  spec.pattern = Pattern::Gappy;
  spec.gappy_read = 1;
  spec.gappy_skip = 1;
  auto g = MakeOffsetGenerator(spec, 4 * 4096);
  EXPECT_EQ(Take(*g, 3), (std::vector<uint64_t>{4096, 12288, 4096}));
  spec.pattern = Pattern::Random;
  EXPECT_EQ(MakeOffsetGenerator(spec, 4 * 4096)->blocks_per_pass(), 4u);
}

TEST(PatternTest, RejectsRegionsWithoutABlock) {
  JobSpec spec;
  spec.bs = 4096;
  EXPECT_THROW(MakeOffsetGenerator(spec, 100), std::invalid_argument);
  spec.bs = 0;
  EXPECT_THROW(MakeOffsetGenerator(spec, 8192), std::invalid_argument);
  spec.bs = 512;
  spec.pattern = Pattern::Gappy;
  spec.gappy_read = 0;
  EXPECT_THROW(MakeOffsetGenerator(spec, 8192), std::invalid_argument);
}

TEST(PatternTest, StridedVisitsEveryLaneThenWraps) {
  // 7 blocks, stride 3: lanes 0,3,6 | 1,4 | 2,5, then the next pass starts at 0 again.
  auto g = MakeStrided({.offset = 4096, .size = 7 * 4096, .bs = 4096}, 3);
  EXPECT_EQ(g->blocks_per_pass(), 7u);
  std::vector<uint64_t> want;
  for (uint64_t b : {0, 3, 6, 1, 4, 2, 5, 0, 3}) want.push_back(4096 + b * 4096);
  EXPECT_EQ(Take(*g, 9), want);
}

TEST(PatternTest, StridedOneIsSequentialAndLargeStrideStaysInRange) {
  auto one = MakeStrided({.offset = 0, .size = 4 * 512, .bs = 512}, 1);
  EXPECT_EQ(Take(*one, 5), (std::vector<uint64_t>{0, 512, 1024, 1536, 0}));
  // A stride beyond the region: every IO starts a new lane, still each block once.
  auto wide = MakeStrided({.offset = 0, .size = 3 * 512, .bs = 512}, 10);
  EXPECT_EQ(Take(*wide, 4), (std::vector<uint64_t>{0, 512, 1024, 0}));
  EXPECT_THROW(MakeStrided({.offset = 0, .size = 4096, .bs = 512}, 0), std::invalid_argument);
}

// Share of `ios` IOs that hit the `top` most requested offsets.
double TopShare(OffsetGenerator& g, uint64_t ios, size_t top) {
  std::map<uint64_t, uint64_t> hits;
  for (uint64_t i = 0; i < ios; ++i) ++hits[g.Next()];
  std::vector<uint64_t> counts;
  for (const auto& [off, n] : hits) counts.push_back(n);
  std::sort(counts.rbegin(), counts.rend());
  uint64_t sum = 0;
  for (size_t i = 0; i < std::min(top, counts.size()); ++i) sum += counts[i];
  return double(sum) / double(ios);
}

// Sum of 1/k^theta for k in [1, n].
double Harmonic(uint64_t n, double theta) {
  double h = 0;
  for (uint64_t k = 1; k <= n; ++k) h += std::pow(double(k), -theta);
  return h;
}

TEST(PatternTest, ZipfSharesFollowTheta) {
  const uint64_t blocks = 10000, ios = 200000;
  const Region r{.offset = 0, .size = blocks * 4096, .bs = 4096};
  for (double theta : {0.8, 1.2}) {
    auto g = MakeZipf(r, theta, 5);
    EXPECT_EQ(g->blocks_per_pass(), blocks);
    const double want_top1 = 1 / Harmonic(blocks, theta);
    const double want_top100 = Harmonic(100, theta) / Harmonic(blocks, theta);
    auto a = MakeZipf(r, theta, 5);
    EXPECT_NEAR(TopShare(*a, ios, 1), want_top1, 0.01) << "theta " << theta;
    EXPECT_NEAR(TopShare(*g, ios, 100), want_top100, 0.01) << "theta " << theta;
  }
  // theta 1.2: the top block gets ~20% of IOs where uniform would give it 0.01%.
  auto g = MakeZipf(r, 1.2, 9);
  EXPECT_GT(TopShare(*g, ios, 1), 0.15);
}

TEST(PatternTest, ZipfIsDeterministicPerSeedAndSpreadsHotBlocks) {
  const Region r{.offset = 8192, .size = 10000 * 4096, .bs = 4096};
  auto a = MakeZipf(r, 1.2, 3), b = MakeZipf(r, 1.2, 3), c = MakeZipf(r, 1.2, 4);
  const auto first = Take(*a, 5000);
  EXPECT_EQ(first, Take(*b, 5000));
  EXPECT_NE(first, Take(*c, 5000));
  for (uint64_t off : first) {
    ASSERT_EQ((off - r.offset) % 4096, 0u);
    ASSERT_GE(off, r.offset);
    ASSERT_LT(off, r.offset + r.size);
  }
  // The hottest 10 blocks are scattered, not the first 10 of the region.
  std::map<uint64_t, uint64_t> hits;
  for (uint64_t off : first) ++hits[off];
  uint64_t in_first_10 = 0;
  for (uint64_t i = 0; i < 10; ++i) in_first_10 += hits[r.offset + i * 4096];
  EXPECT_LT(in_first_10, 500u);
  EXPECT_THROW(MakeZipf(r, 0, 1), std::invalid_argument);
}

TEST(PatternTest, ZipfWorksOnHugeRegionsWithoutMemory) {
  auto g = MakeZipf({.offset = 0, .size = uint64_t(1) << 52, .bs = 4096}, 1.1, 3);
  for (int i = 0; i < 10000; ++i) ASSERT_LT(g->Next(), uint64_t(1) << 52);
}

TEST(PatternTest, HotColdSendsHotPctToTheHotZone) {
  const uint64_t blocks = 5000, ios = 20000;
  const Region r{.offset = 4096, .size = blocks * 4096, .bs = 4096};
  for (uint64_t seed : {1u, 2u, 3u}) {
    const BlockRange zone = HotColdZone(blocks, 0.2, seed);
    EXPECT_EQ(zone.count, 1000u);
    EXPECT_LE(zone.first + zone.count, blocks);
    auto g = MakeHotCold(r, 0.2, 80, seed);
    EXPECT_EQ(g->blocks_per_pass(), blocks);
    uint64_t hot = 0;
    std::set<uint64_t> cold_seen;
    for (uint64_t i = 0; i < ios; ++i) {
      const uint64_t off = g->Next();
      ASSERT_GE(off, r.offset);
      ASSERT_LT(off, r.offset + r.size);
      const uint64_t block = (off - r.offset) / 4096;
      if (block >= zone.first && block < zone.first + zone.count) {
        ++hot;
      } else {
        cold_seen.insert(block);
      }
    }
    EXPECT_NEAR(double(hot) / ios, 0.80, 0.03) << "seed " << seed;
    // ~4000 cold IOs over 4000 cold blocks, walked without repeats: all of them.
    EXPECT_GT(cold_seen.size(), 3800u);
  }
}

TEST(PatternTest, HotColdEdgesAndDeterminism) {
  const Region r{.offset = 0, .size = 100 * 4096, .bs = 4096};
  auto a = MakeHotCold(r, 0.1, 90, 7), b = MakeHotCold(r, 0.1, 90, 7);
  EXPECT_EQ(Take(*a, 1000), Take(*b, 1000));
  // The whole region hot: every IO is in the zone, no cold draw.
  auto all = MakeHotCold(r, 1.0, 50, 7);
  std::set<uint64_t> seen;
  for (uint64_t off : Take(*all, 100)) seen.insert(off);
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_THROW(MakeHotCold(r, 0, 80, 1), std::invalid_argument);
  EXPECT_THROW(MakeHotCold(r, 0.2, 101, 1), std::invalid_argument);
}

TEST(PatternTest, FactoryFollowsStridedAndDistributions) {
  JobSpec spec;
  spec.bs = 4096;
  spec.pattern = Pattern::Strided;
  spec.stride_blocks = 2;
  EXPECT_EQ(Take(*MakeOffsetGenerator(spec, 4 * 4096), 4),
            (std::vector<uint64_t>{0, 8192, 4096, 12288}));
  spec.pattern = Pattern::Random;
  spec.seed = 11;
  const Region r{.offset = 0, .size = 1000 * 4096, .bs = 4096};
  spec.distribution = Distribution::Zipf;
  spec.zipf_theta = 1.3;
  EXPECT_EQ(Take(*MakeOffsetGenerator(spec, r.size), 100), Take(*MakeZipf(r, 1.3, 11), 100));
  spec.distribution = Distribution::HotCold;
  spec.hot_fraction = 0.3;
  spec.hot_pct = 70;
  EXPECT_EQ(Take(*MakeOffsetGenerator(spec, r.size), 100),
            Take(*MakeHotCold(r, 0.3, 70, 11), 100));
  spec.distribution = Distribution::Uniform;
  EXPECT_EQ(Take(*MakeOffsetGenerator(spec, r.size), 100), Take(*MakeRandom(r, 11), 100));
  spec.pattern = Pattern::Strided;
  spec.stride_blocks = 0;
  EXPECT_THROW(MakeOffsetGenerator(spec, r.size), std::invalid_argument);
}

}  // namespace
}  // namespace storbed

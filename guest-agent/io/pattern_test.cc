#include "pattern.h"

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

}  // namespace
}  // namespace storbed

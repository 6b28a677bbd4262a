// Offset generators: where each IO of a job goes inside its region
// [offset, offset + size), in whole blocks of bs bytes (a partial last block is never
// touched). A pass visits the pattern's blocks once; Next() then starts the next pass.
#pragma once

#include <cstdint>
#include <memory>

#include "job.h"

namespace storbed {

class OffsetGenerator {
 public:
  virtual ~OffsetGenerator() = default;
  // Byte offset (absolute, region offset included) of the next IO.
  virtual uint64_t Next() = 0;
  // IOs in one pass over the region.
  virtual uint64_t blocks_per_pass() const = 0;
};

// The region an IO stream covers, resolved against the target's size.
struct Region {
  uint64_t offset = 0;  // first byte
  uint64_t size = 0;    // bytes
  uint64_t bs = 4096;   // bytes per IO
  uint64_t blocks() const { return bs ? size / bs : 0; }
};

std::unique_ptr<OffsetGenerator> MakeSequential(Region region);
// Each block exactly once per pass in an order fixed by (seed, pass number); O(1) memory.
std::unique_ptr<OffsetGenerator> MakeRandom(Region region, uint64_t seed);
// The region cut into runs of `run` blocks (the last may be shorter); each run once per pass,
// in an order fixed by (seed, pass number), its blocks in a row (fio rw=randread:<run>,
// whose offsets are not run-aligned). run = 1 is MakeRandom.
std::unique_ptr<OffsetGenerator> MakeRandomRuns(Region region, uint32_t run, uint64_t seed);
// `read` blocks in a row, then `skip` blocks left out (fio rw=read:<skip * bs>).
std::unique_ptr<OffsetGenerator> MakeGappy(Region region, uint32_t read, uint32_t skip);
// Blocks 0, s, 2s, ... to the end of the region, then 1, 1+s, ..., up to lane s-1: a pass
// visits every block once (unlike gappy, which leaves the gaps out). s = 1 is sequential.
// Throws std::invalid_argument when stride_blocks is 0.
std::unique_ptr<OffsetGenerator> MakeStrided(Region region, uint32_t stride_blocks);
// Zipf(theta) with replacement: popularity rank k has weight 1/k^theta (fio
// random_distribution=zipf:theta), and ranks are scattered over the region by a keyed
// permutation so hot blocks are not all at the start. O(1) memory at any region size
// (rejection-inversion sampling). A "pass" is blocks() IOs. Throws std::invalid_argument
// unless theta > 0.
std::unique_ptr<OffsetGenerator> MakeZipf(Region region, double theta, uint64_t seed);
// hot_pct % of IOs go to a contiguous hot zone (HotColdZone) of hot_fraction of the
// region, the rest to the other blocks; each zone is walked in its own random order, every
// block once before any repeats. A "pass" is blocks() IOs. Throws std::invalid_argument
// unless 0 < hot_fraction <= 1 and 0 <= hot_pct <= 100.
std::unique_ptr<OffsetGenerator> MakeHotCold(Region region, double hot_fraction, double hot_pct,
                                             uint64_t seed);

// Blocks [first, first + count) of a region.
struct BlockRange {
  uint64_t first = 0;
  uint64_t count = 0;
};
// The hot zone MakeHotCold uses: round(hot_fraction * blocks) blocks (at least 1) at a
// position fixed by the seed.
BlockRange HotColdZone(uint64_t blocks, double hot_fraction, uint64_t seed);

// The generator spec.pattern names over `region_size` bytes from spec.offset; Random
// follows spec.distribution (uniform = MakeRandom). Throws std::invalid_argument when the
// region holds no whole block or a pattern setting is out of range.
std::unique_ptr<OffsetGenerator> MakeOffsetGenerator(const JobSpec& spec, uint64_t region_size);

// A keyed bijection on [0, n): a balanced Feistel network over the next even power of
// two, cycle-walked back into range. Public for tests.
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t key);
  uint64_t operator()(uint64_t i) const;

 private:
  uint64_t Round(uint64_t half, int round) const;
  uint64_t n_;
  uint64_t key_;
  int half_bits_;
  uint64_t half_mask_;
};

}  // namespace storbed

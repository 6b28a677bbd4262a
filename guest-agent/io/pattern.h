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
// `read` blocks in a row, then `skip` blocks left out (fio rw=read:<skip * bs>).
std::unique_ptr<OffsetGenerator> MakeGappy(Region region, uint32_t read, uint32_t skip);

// The generator spec.pattern names over `region_size` bytes from spec.offset.
// Throws std::invalid_argument when the region holds no whole block or gappy_read is 0.
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

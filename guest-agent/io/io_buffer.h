// IO buffers: 4096-aligned memory (O_DIRECT needs it) and the data pattern writes
// carry: every 512-byte sector is stamped with its absolute byte offset and the job's
// seed, so a block read back later says where and by which job it was written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace storbed {

inline constexpr size_t kIoAlignment = 4096;
inline constexpr size_t kStampSector = 512;

// Move-only, zero-filled, aligned to kIoAlignment. Throws std::bad_alloc.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t size);
  AlignedBuffer(AlignedBuffer&& o) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// One job thread's IO buffers, kept across its passes: otherwise every pass allocates,
// zeroes and faults in iodepth x bs bytes again (at 1 MiB, depth 64, buffered, a quarter
// of the agent's CPU went to that). One per thread; not thread-safe.
class IoBuffers {
 public:
  // `count` buffers of `size` bytes: the ones held when they match, else new ones.
  std::span<AlignedBuffer> Take(size_t count, size_t size);

 private:
  std::vector<AlignedBuffer> bufs_;
};

// Fills buf[0, len) as the data written at byte `offset` of the target by a job with
// `seed`: each sector holds a magic, its own absolute offset and the seed, then words
// derived from both.
void StampSectors(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed);

// The first sector that differs from what StampSectors writes there, and what it holds.
struct StampMismatch {
  uint64_t sector = 0;        // absolute byte offset of the sector
  bool has_magic = false;     // false: not storbed data (zeros, garbage, another tool)
  uint64_t found_offset = 0;  // the offset and seed words as read (0 where the sector is short)
  uint64_t found_seed = 0;
  // "sector S holds offset A seed B (expected offset S seed X)", with "without the stamp
  // magic" or "with damaged data" when the header alone does not explain the mismatch.
  std::string Describe(uint64_t expected_seed) const;
  bool operator==(const StampMismatch&) const = default;
};

// Checks buf[0, len), read from byte `offset`, byte for byte against the stamp of
// `seed`; nullopt when every sector matches.
std::optional<StampMismatch> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset,
                                               uint64_t seed);

}  // namespace storbed

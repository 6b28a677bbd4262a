// IO buffers: 4096-aligned memory (O_DIRECT needs it) and the data pattern writes
// carry: every 512-byte sector is stamped with its absolute byte offset and the job's
// seed, so a block read back later says where and by which job it was written.
//
// The stamp (format 2): a sector's first 64-byte line holds a magic, its offset, the seed
// and five words mixing both; the other 56 words are derived from the seed and the
// sector's place in its 64 KiB window. So a buffer stamped for one write needs only its
// header lines rewritten for the next write of the same job, length and window phase:
// 1/8 of the bytes (fio likewise fills its buffers once and scrambles a line per sector).
// The body repeats only every 64 KiB, beyond the match distance of lz4 (64 KiB - 1) and
// deflate (32 KiB), so a compressing backend cannot shrink it. Reads also accept format 1
// (every word mixing offset and seed), which agents before 2026-12-02 wrote.
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
inline constexpr size_t kStampHeader = 64;           // the line rewritten at every write
inline constexpr uint64_t kStampBodyPeriod = 65536;  // the body repeats at this distance

// One job thread's IO buffers, kept across its passes: otherwise every pass allocates,
// zeroes and faults in iodepth x bs bytes again (at 1 MiB, depth 64, buffered, a quarter
// of the agent's CPU went to that). All of them share one anonymous mapping, populated in
// one call rather than page fault by page fault. One per thread; not thread-safe.
class IoBuffers {
 public:
  IoBuffers() = default;
  IoBuffers(const IoBuffers&) = delete;
  IoBuffers& operator=(const IoBuffers&) = delete;
  ~IoBuffers();

  // `count` zero-filled buffers of `size` bytes, each aligned to kIoAlignment: the ones
  // held when count, size and huge_pages match, else new ones. huge_pages asks for
  // transparent huge pages (a hint the kernel may refuse): a 1 MiB O_DIRECT buffer is
  // then one physically contiguous segment, not 256 pages of 4 KiB (job field
  // huge_buffers). Throws std::bad_alloc.
  std::span<uint8_t* const> Take(size_t count, size_t size, bool huge_pages = false);

  // With huge_pages: the buffers' mapping (whole huge pages) and how much of it the kernel
  // backs with huge pages now, from /proc/self/smaps. Zeros without huge_pages.
  struct HugePageUse {
    uint64_t mapped = 0;
    uint64_t huge = 0;
  };
  HugePageUse HugePages() const;

  // The buffers of the last Take, and their size.
  std::span<uint8_t* const> Held() const { return bufs_; }
  size_t BufferSize() const { return size_; }

 private:
  void Release();

  uint8_t* map_ = nullptr;  // the whole mapping: region_ and, with huge pages, its guards
  size_t map_size_ = 0;
  uint8_t* region_ = nullptr;  // the buffers
  size_t region_size_ = 0;
  size_t size_ = 0;
  bool huge_pages_ = false;
  std::vector<uint8_t*> bufs_;
};

// Fills buf[0, len) as the data written at byte `offset` of the target by a job with
// `seed`: each sector holds a magic, its own absolute offset and the seed, then words
// derived from both.
void StampSectors(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed);

// What a write buffer holds since its last StampWrite. Forget() whenever anything else is
// written into the buffer (a read's data): the next stamp then writes every byte.
class StampedBody {
 public:
  void Forget() { valid_ = false; }

 private:
  friend void StampWrite(uint8_t*, size_t, uint64_t, uint64_t, StampedBody&);
  bool valid_ = false;
  uint64_t seed_ = 0;
  size_t len_ = 0;
  uint64_t phase_ = 0;  // the write's offset within kStampBodyPeriod
};

// The same bytes as StampSectors. When `body` holds a stamp of the same seed, length and
// phase, only each sector's header line is written.
void StampWrite(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed, StampedBody& body);

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
// `seed` (either format, per sector); nullopt when every sector matches.
std::optional<StampMismatch> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset,
                                               uint64_t seed);

}  // namespace storbed

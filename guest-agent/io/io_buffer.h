// IO buffers: 4096-aligned memory (O_DIRECT needs it) and the data pattern writes
// carry: every 512-byte sector is stamped with its absolute byte offset, so a block
// read back later says where it was written and whether it was written by storbed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

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

// Fills buf[0, len) as the data written at byte `offset` of the target: each sector
// starts with a magic and its own absolute offset; the rest repeats the offset.
void StampSectors(uint8_t* buf, size_t len, uint64_t offset);

// The first byte offset in buf[0, len) (read from `offset`) whose sector is not what
// StampSectors writes there; nullopt when every sector matches.
std::optional<uint64_t> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset);

}  // namespace storbed

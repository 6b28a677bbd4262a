#include "io_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace storbed {
namespace {

constexpr uint64_t kMagic = 0x6465627230747373ull;  // "sst0rbed" little-endian

void Fill(uint8_t* sector, size_t len, uint64_t offset) {
  uint64_t words[kStampSector / 8];
  words[0] = kMagic;
  for (size_t i = 1; i < kStampSector / 8; ++i) words[i] = offset ^ (i * 0x9e3779b97f4a7c15ull);
  std::memcpy(sector, words, len);
}

}  // namespace

AlignedBuffer::AlignedBuffer(size_t size) : size_(size) {
  void* p = nullptr;
  if (posix_memalign(&p, kIoAlignment, size ? size : 1) != 0) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
  std::memset(data_, 0, size);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    std::free(data_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

void StampSectors(uint8_t* buf, size_t len, uint64_t offset) {
  for (size_t pos = 0; pos < len; pos += kStampSector)
    Fill(buf + pos, std::min(kStampSector, len - pos), offset + pos);
}

std::optional<uint64_t> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset) {
  uint8_t expected[kStampSector];
  for (size_t pos = 0; pos < len; pos += kStampSector) {
    const size_t n = std::min(kStampSector, len - pos);
    Fill(expected, n, offset + pos);
    if (std::memcmp(buf + pos, expected, n) != 0) return offset + pos;
  }
  return std::nullopt;
}

}  // namespace storbed

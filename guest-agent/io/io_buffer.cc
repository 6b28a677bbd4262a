#include "io_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace storbed {
namespace {

constexpr uint64_t kMagic = 0x6465627230747373ull;  // "sst0rbed" little-endian

// Word 0 the magic, 1 the sector's offset, 2 the seed, the rest a mix of both, so a
// sector from another offset or another job's write differs in most of its bytes.
void Fill(uint8_t* sector, size_t len, uint64_t offset, uint64_t seed) {
  uint64_t words[kStampSector / 8];
  words[0] = kMagic;
  words[1] = offset;
  words[2] = seed;
  for (size_t i = 3; i < kStampSector / 8; ++i)
    words[i] = offset ^ (i * 0x9e3779b97f4a7c15ull) ^ (seed * 0xbf58476d1ce4e5b9ull + i);
  std::memcpy(sector, words, len);
}

uint64_t Word(const uint8_t* sector, size_t len, size_t i) {
  uint64_t w = 0;
  if (len > i * 8) std::memcpy(&w, sector + i * 8, std::min<size_t>(8, len - i * 8));
  return w;
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

void StampSectors(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed) {
  for (size_t pos = 0; pos < len; pos += kStampSector)
    Fill(buf + pos, std::min(kStampSector, len - pos), offset + pos, seed);
}

std::optional<StampMismatch> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset,
                                               uint64_t seed) {
  uint8_t expected[kStampSector];
  for (size_t pos = 0; pos < len; pos += kStampSector) {
    const size_t n = std::min(kStampSector, len - pos);
    Fill(expected, n, offset + pos, seed);
    if (std::memcmp(buf + pos, expected, n) == 0) continue;
    const uint8_t* s = buf + pos;
    const uint64_t magic = Word(s, n, 0);
    uint64_t want_magic = 0;
    std::memcpy(&want_magic, expected, std::min<size_t>(8, n));
    return StampMismatch{.sector = offset + pos,
                         .has_magic = n >= 8 ? magic == kMagic : magic == want_magic,
                         .found_offset = Word(s, n, 1),
                         .found_seed = Word(s, n, 2)};
  }
  return std::nullopt;
}

std::string StampMismatch::Describe(uint64_t expected_seed) const {
  std::string text = "sector " + std::to_string(sector) + " holds offset " +
                     std::to_string(found_offset) + " seed " + std::to_string(found_seed);
  if (!has_magic)
    text += " without the stamp magic";
  else if (found_offset == sector && found_seed == expected_seed)
    text += " with damaged data";
  return text + " (expected offset " + std::to_string(sector) + " seed " +
         std::to_string(expected_seed) + ")";
}

}  // namespace storbed

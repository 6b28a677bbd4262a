#include "io_buffer.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace storbed {
namespace {

constexpr uint64_t kMagic = 0x6465627230747373ull;  // "sst0rbed" little-endian
constexpr size_t kWords = kStampSector / 8;

// The stamp of a sector at offset o: word 0 the magic, 1 the offset, 2 the seed, the
// rest a mix of both, so a sector from another offset or another job's write differs in
// most of its bytes. Word i >= 3 is o ^ (i * K1) ^ (seed * K2 + i). The seed's part is
// computed once per call: word i = base[i] ^ (o & mask[i]).
struct SeedWords {
  alignas(16) uint64_t base[kWords];
  alignas(16) uint64_t mask[kWords];  // which words take the offset in
};

SeedWords SeedWordsOf(uint64_t seed) {
  SeedWords t{};
  t.base[0] = kMagic;
  t.base[2] = seed;
  t.mask[1] = ~uint64_t(0);
  for (size_t i = 3; i < kWords; ++i) {
    t.base[i] = (i * 0x9e3779b97f4a7c15ull) ^ (seed * 0xbf58476d1ce4e5b9ull + i);
    t.mask[i] = ~uint64_t(0);
  }
  return t;
}

uint64_t StampWord(const SeedWords& t, size_t i, uint64_t offset) {
  return t.base[i] ^ (offset & t.mask[i]);
}

uint64_t Get(const uint8_t* sector, size_t i) {
  uint64_t w;
  std::memcpy(&w, sector + i * 8, 8);
  return w;
}

// The first len bytes of the stamp (len < kStampSector only for a block's short tail).
// A write's buffer goes to the device, not back to this CPU: on x86 whole sectors are
// written with non-temporal stores, which skip reading each cache line first. That read
// (the line was last touched by the device's DMA or another CPU) made the stamp most of
// a 1 MiB write's CPU time (docs/architecture.md, "The agent's IO path").
void Fill(uint8_t* sector, size_t len, const SeedWords& t, uint64_t offset) {
#if defined(__SSE2__)
  if (len == kStampSector && reinterpret_cast<uintptr_t>(sector) % 16 == 0) {
    const __m128i o = _mm_set1_epi64x(int64_t(offset));
    auto* out = reinterpret_cast<__m128i*>(sector);
    for (size_t j = 0; j < kWords / 2; ++j) {
      const __m128i base = _mm_load_si128(reinterpret_cast<const __m128i*>(t.base) + j);
      const __m128i mask = _mm_load_si128(reinterpret_cast<const __m128i*>(t.mask) + j);
      _mm_stream_si128(out + j, _mm_xor_si128(base, _mm_and_si128(o, mask)));
    }
    return;
  }
#endif
  uint64_t words[kWords];
  for (size_t i = 0; i < kWords; ++i) words[i] = StampWord(t, i, offset);
  std::memcpy(sector, words, len);
}

// Word by word, no memcmp call per sector.
bool Matches(const uint8_t* sector, size_t len, const SeedWords& t, uint64_t offset) {
  if (len == kStampSector) {
    uint64_t diff = 0;
    for (size_t i = 0; i < kWords; ++i) diff |= Get(sector, i) ^ StampWord(t, i, offset);
    return diff == 0;
  }
  uint8_t expected[kStampSector];
  Fill(expected, len, t, offset);
  return std::memcmp(sector, expected, len) == 0;
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

std::span<AlignedBuffer> IoBuffers::Take(size_t count, size_t size) {
  if (bufs_.size() != count || (count && bufs_.front().size() != size)) {
    bufs_.clear();  // freed first: the old and new sets are never held together
    bufs_.reserve(count);
    for (size_t i = 0; i < count; ++i) bufs_.emplace_back(size);
  }
  return bufs_;
}

void StampSectors(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed) {
  const SeedWords t = SeedWordsOf(seed);
  for (size_t pos = 0; pos < len; pos += kStampSector)
    Fill(buf + pos, std::min(kStampSector, len - pos), t, offset + pos);
#if defined(__SSE2__)
  _mm_sfence();  // the non-temporal stores are visible before the buffer is handed on
#endif
}

std::optional<StampMismatch> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset,
                                               uint64_t seed) {
  const SeedWords t = SeedWordsOf(seed);
  for (size_t pos = 0; pos < len; pos += kStampSector) {
    const size_t n = std::min(kStampSector, len - pos);
    if (Matches(buf + pos, n, t, offset + pos)) continue;
    const uint8_t* s = buf + pos;
    const uint64_t magic = Word(s, n, 0);
    const uint64_t want_magic = n >= 8 ? kMagic : kMagic & ((uint64_t(1) << (8 * n)) - 1);
    return StampMismatch{.sector = offset + pos,
                         .has_magic = magic == want_magic,
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

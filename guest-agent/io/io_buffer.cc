#include "io_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace storbed {
namespace {

constexpr uint64_t kMagic1 = 0x6465627230747373ull;  // "sst0rbed" little-endian: format 1
constexpr uint64_t kMagic2 = 0x6465627231747373ull;  // "sst1rbed": format 2
constexpr size_t kWords = kStampSector / 8;
constexpr size_t kHeaderWords = kStampHeader / 8;

// Word i of the sector at offset o is base[i] ^ (o & omask[i]) ^ (Phase(o) & pmask[i]).
// Both formats: word 0 the magic, 1 the offset, 2 the seed. Words i >= 3 mix in
// K(i) = (i * K1) ^ (seed * K2 + i): format 2 as o ^ K(i) in the header line (3-7) and
// Phase(o) ^ K(i) in the body (8-63); format 1 as o ^ K(i) in every word. The seed's part
// is computed once per call.
struct StampWords {
  alignas(16) uint64_t base[kWords];
  alignas(16) uint64_t omask[kWords];  // which words take the offset in
  alignas(16) uint64_t pmask[kWords];  // which take the phase in
};

StampWords ComputeFormat(uint64_t seed, int format) {
  StampWords t{};
  t.base[0] = format == 1 ? kMagic1 : kMagic2;
  t.base[2] = seed;
  t.omask[1] = ~uint64_t(0);
  for (size_t i = 3; i < kWords; ++i) {
    t.base[i] = (i * 0x9e3779b97f4a7c15ull) ^ (seed * 0xbf58476d1ce4e5b9ull + i);
    (format == 1 || i < kHeaderWords ? t.omask : t.pmask)[i] = ~uint64_t(0);
  }
  return t;
}

// A job stamps and checks with one seed: each thread keeps the last seed's words per
// format rather than computing 1.5 KiB of them for every IO.
const StampWords& FormatOf(uint64_t seed, int format) {
  struct Cached {
    bool valid = false;
    uint64_t seed = 0;
    StampWords words;
  };
  thread_local Cached cache[2];
  Cached& c = cache[format == 1 ? 0 : 1];
  if (!c.valid || c.seed != seed)
    c = {.valid = true, .seed = seed, .words = ComputeFormat(seed, format)};
  return c.words;
}

// The sector's index in its 64 KiB window, spread over all 64 bits (an odd multiplier:
// the 128 indices give 128 different words).
uint64_t Phase(uint64_t offset) {
  return ((offset % kStampBodyPeriod) / kStampSector + 1) * 0xd6e8feb86659fd93ull;
}

uint64_t StampWord(const StampWords& t, size_t i, uint64_t offset, uint64_t phase) {
  return t.base[i] ^ (offset & t.omask[i]) ^ (phase & t.pmask[i]);
}

uint64_t Get(const uint8_t* sector, size_t i) {
  uint64_t w;
  std::memcpy(&w, sector + i * 8, 8);
  return w;
}

// Words [0, words) of the stamp, or its first len bytes for a block's short tail (len <
// kStampSector): the portable path, for tails, unaligned buffers and Matches. A write's
// buffer goes to the device, not back to this CPU: on x86 StampFormat2Sse2 writes whole
// sectors with non-temporal stores, which skip reading each cache line first. That read
// (the line was last touched by the device's DMA or another CPU) made the stamp most of a
// 1 MiB write's CPU time (docs/bench-notes.md, "The agent's IO path").
void Fill(uint8_t* sector, size_t len, const StampWords& t, uint64_t offset, size_t words) {
  const uint64_t phase = Phase(offset);
  uint64_t stamp[kWords];
  for (size_t i = 0; i < kWords; ++i) stamp[i] = StampWord(t, i, offset, phase);
  std::memcpy(sector, stamp, len == kStampSector ? words * 8 : len);
}

#if defined(__SSE2__)
// Format 2 over `sectors` whole sectors of a 16-byte-aligned buffer: every write's case.
// The header line is o ^ K(i) and the body Phase(o) ^ K(i) (ComputeFormat), so the header's
// words and masks stay in registers across sectors and each 16 bytes of body cost one xor
// and one store. Fill, which reloads both masks for every 16 bytes, made a 64k write cost
// 11.8k instructions against fio's 4.0k (bench/agent_counts.sh, callgrind). Same bytes as
// Fill (IoBufferTest.AlignedAndUnalignedStampsAreTheSameBytes).
void StampFormat2Sse2(uint8_t* buf, size_t sectors, uint64_t offset, const StampWords& t,
                      bool header_only) {
  static_assert(kHeaderWords == 8, "the header line is four vectors, held in registers");
  const auto* base = reinterpret_cast<const __m128i*>(t.base);
  const auto* omask = reinterpret_cast<const __m128i*>(t.omask);
  const __m128i h0 = _mm_load_si128(base), h1 = _mm_load_si128(base + 1),
                h2 = _mm_load_si128(base + 2), h3 = _mm_load_si128(base + 3);
  // Words 0 (magic) and 2 (seed) are the same in every sector; 1 and 3-7 take the offset.
  const __m128i m0 = _mm_load_si128(omask), m1 = _mm_load_si128(omask + 1);
  const __m128i step = _mm_set1_epi64x(int64_t(kStampSector));
  __m128i o = _mm_set1_epi64x(int64_t(offset));
  for (size_t s = 0; s < sectors; ++s, offset += kStampSector, o = _mm_add_epi64(o, step)) {
    auto* out = reinterpret_cast<__m128i*>(buf + s * kStampSector);
    _mm_stream_si128(out, _mm_xor_si128(h0, _mm_and_si128(o, m0)));
    _mm_stream_si128(out + 1, _mm_xor_si128(h1, _mm_and_si128(o, m1)));
    _mm_stream_si128(out + 2, _mm_xor_si128(h2, o));
    _mm_stream_si128(out + 3, _mm_xor_si128(h3, o));
    if (header_only) continue;
    const __m128i p = _mm_set1_epi64x(int64_t(Phase(offset)));
#pragma GCC unroll 4
    for (size_t j = kHeaderWords / 2; j < kWords / 2; ++j)
      _mm_stream_si128(out + j, _mm_xor_si128(_mm_load_si128(base + j), p));
  }
}
#endif

// Writes format 2 (`t` is FormatOf(seed, 2)): the header lines alone when `words` is
// kHeaderWords, else whole sectors. A short tail is always written whole.
void StampFormat2(uint8_t* buf, size_t len, uint64_t offset, const StampWords& t, size_t words) {
  size_t pos = 0;
#if defined(__SSE2__)
  if (reinterpret_cast<uintptr_t>(buf) % 16 == 0) {
    pos = len / kStampSector * kStampSector;
    StampFormat2Sse2(buf, len / kStampSector, offset, t, words == kHeaderWords);
  }
#endif
  for (; pos < len; pos += kStampSector) {
    const size_t n = std::min(kStampSector, len - pos);
    Fill(buf + pos, n, t, offset + pos, n == kStampSector ? words : kWords);
  }
#if defined(__SSE2__)
  _mm_sfence();  // the non-temporal stores are visible before the buffer is handed on
#endif
}

// Word by word, no memcmp call per sector.
bool Matches(const uint8_t* sector, size_t len, const StampWords& t, uint64_t offset) {
  if (len == kStampSector) {
    const uint64_t phase = Phase(offset);
    uint64_t diff = 0;
    for (size_t i = 0; i < kWords; ++i) diff |= Get(sector, i) ^ StampWord(t, i, offset, phase);
    return diff == 0;
  }
  uint8_t expected[kStampSector];
  Fill(expected, len, t, offset, kWords);
  return std::memcmp(sector, expected, len) == 0;
}

uint64_t Word(const uint8_t* sector, size_t len, size_t i) {
  uint64_t w = 0;
  if (len > i * 8) std::memcpy(&w, sector + i * 8, std::min<size_t>(8, len - i * 8));
  return w;
}

// The magic's first len bytes (a short tail holds only part of it).
uint64_t MagicPrefix(uint64_t magic, size_t len) {
  return len >= 8 ? magic : magic & ((uint64_t(1) << (8 * len)) - 1);
}

}  // namespace

IoBuffers::~IoBuffers() { Release(); }

void IoBuffers::Release() {
  if (map_) munmap(map_, map_size_);
  map_ = region_ = nullptr;
  map_size_ = region_size_ = 0;
  bufs_.clear();
}

std::span<uint8_t* const> IoBuffers::Take(size_t count, size_t size, bool huge_pages) {
  if (bufs_.size() == count && size_ == size && huge_pages_ == huge_pages) return bufs_;
  Release();  // the old set goes first: the old and new sets are never held together
  size_ = size;
  huge_pages_ = huge_pages;
  if (count == 0) return bufs_;
  constexpr size_t kHugePage = size_t(2) << 20;
  constexpr size_t kGuard = kIoAlignment;
  const size_t stride =
      (std::max<size_t>(size, 1) + kIoAlignment - 1) / kIoAlignment * kIoAlignment;
  // Huge pages: whole ones, 2 MiB-aligned, between two PROT_NONE guard pages, so the
  // kernel never merges the range with a neighbour and smaps shows it alone (HugePages).
  // Mapped with a huge page and a guard to spare; the spare ends are unmapped.
  const size_t bytes =
      huge_pages ? (stride * count + kHugePage - 1) / kHugePage * kHugePage : stride * count;
  const size_t reserve = huge_pages ? bytes + kHugePage + kGuard : bytes;
  void* p = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    // Said in the user's words: a bare std::bad_alloc reached the run record as the error.
    const int err = errno;
    char what[256];
    std::snprintf(what, sizeof what,
                  "cannot map %zu IO buffers of %zu bytes (%.1f MiB): %s; lower bs x iodepth x "
                  "numjobs or give the machine more memory",
                  count, size, double(reserve) / (1 << 20), std::strerror(err));
    throw std::runtime_error(what);
  }
  auto* start = static_cast<uint8_t*>(p);
  map_ = region_ = start;
  map_size_ = region_size_ = reserve;
  if (huge_pages) {
    const uintptr_t after_guard = reinterpret_cast<uintptr_t>(start) + kGuard;
    region_ = reinterpret_cast<uint8_t*>((after_guard + kHugePage - 1) / kHugePage * kHugePage);
    region_size_ = bytes;
    map_ = region_ - kGuard;
    map_size_ = bytes + 2 * kGuard;
    if (map_ > start) munmap(start, size_t(map_ - start));
    if (start + reserve > map_ + map_size_)
      munmap(map_ + map_size_, size_t(start + reserve - (map_ + map_size_)));
    mprotect(map_, kGuard, PROT_NONE);
    mprotect(region_ + bytes, kGuard, PROT_NONE);
    madvise(region_, bytes, MADV_HUGEPAGE);  // a hint: without THP, 4 KiB pages serve
  }
  // One call faults every page in. Before Linux 5.14 it is refused: pages then fault in
  // on first use, as before.
  madvise(region_, region_size_, MADV_POPULATE_WRITE);
  // Then one store per page from user space, before the IO phase. Under a hypervisor that
  // shadows page tables (this machine's), pages the kernel populated still cost an exit at
  // the first user access (~7 us per 4 KiB): over one pass of a 1m write job, 8 stamps per
  // buffer, the stamp averaged ~190 us per MiB instead of ~45, inside the measured phase
  // (docs/bench-notes.md, "The first touch"). Elsewhere: strided stores to mapped pages.
  for (size_t at = 0; at < region_size_; at += kIoAlignment)
    *reinterpret_cast<volatile uint8_t*>(region_ + at) = 0;
  bufs_.reserve(count);
  for (size_t i = 0; i < count; ++i) bufs_.push_back(region_ + i * stride);
  return bufs_;
}

IoBuffers::HugePageUse IoBuffers::HugePages() const {
  if (!huge_pages_ || !region_) return {};
  HugePageUse use{.mapped = region_size_, .huge = 0};
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool ours = false;
  while (std::getline(smaps, line)) {
    unsigned long long from = 0, to = 0, kb = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &from, &to) == 2) {
      ours = from == reinterpret_cast<uintptr_t>(region_) &&
             to == reinterpret_cast<uintptr_t>(region_) + region_size_;
    } else if (ours && std::sscanf(line.c_str(), "AnonHugePages: %llu kB", &kb) == 1) {
      use.huge = std::min<uint64_t>(kb * 1024, region_size_);
      break;
    }
  }
  return use;
}

void StampSectors(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed) {
  StampFormat2(buf, len, offset, FormatOf(seed, 2), kWords);
}

void StampWrite(uint8_t* buf, size_t len, uint64_t offset, uint64_t seed, StampedBody& body) {
  const uint64_t phase = offset % kStampBodyPeriod;
  const bool body_in_place =
      body.valid_ && body.seed_ == seed && body.len_ == len && body.phase_ == phase;
  StampFormat2(buf, len, offset, FormatOf(seed, 2), body_in_place ? kHeaderWords : kWords);
  body.valid_ = true;
  body.seed_ = seed;
  body.len_ = len;
  body.phase_ = phase;
}

std::optional<StampMismatch> FindStampMismatch(const uint8_t* buf, size_t len, uint64_t offset,
                                               uint64_t seed) {
  const StampWords& format2 = FormatOf(seed, 2);
  const StampWords& format1 = FormatOf(seed, 1);
  for (size_t pos = 0; pos < len; pos += kStampSector) {
    const size_t n = std::min(kStampSector, len - pos);
    const uint8_t* s = buf + pos;
    if (Matches(s, n, format2, offset + pos) || Matches(s, n, format1, offset + pos)) continue;
    const uint64_t magic = Word(s, n, 0);
    return StampMismatch{
        .sector = offset + pos,
        .has_magic = magic == MagicPrefix(kMagic2, n) || magic == MagicPrefix(kMagic1, n),
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

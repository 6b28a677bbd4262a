#include "pattern.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <stdexcept>
#include <string>

namespace storbed {
namespace {

// SplitMix64 finaliser: a cheap, well-mixed 64-bit hash.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void CheckRegion(const Region& r) {
  if (r.bs == 0) throw std::invalid_argument("bs must be > 0");
  if (r.blocks() == 0)
    throw std::invalid_argument("region of " + std::to_string(r.size) +
                                " bytes holds no whole block of bs=" + std::to_string(r.bs));
}

class Sequential : public OffsetGenerator {
 public:
  explicit Sequential(Region r) : r_(r) { CheckRegion(r_); }
  uint64_t Next() override {
    const uint64_t off = r_.offset + i_ * r_.bs;
    if (++i_ == r_.blocks()) i_ = 0;
    return off;
  }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  Region r_;
  uint64_t i_ = 0;
};

class Random : public OffsetGenerator {
 public:
  Random(Region r, uint64_t seed) : r_(r), seed_(seed), perm_(Start(r, seed, 0)) {}
  uint64_t Next() override {
    const uint64_t off = r_.offset + perm_(i_) * r_.bs;
    if (++i_ == r_.blocks()) {
      i_ = 0;
      perm_ = Permutation(r_.blocks(), Mix(seed_ ^ Mix(++pass_)));
    }
    return off;
  }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  static Permutation Start(const Region& r, uint64_t seed, uint64_t pass) {
    CheckRegion(r);
    return Permutation(r.blocks(), Mix(seed ^ Mix(pass)));
  }
  Region r_;
  uint64_t seed_;
  uint64_t pass_ = 0;
  uint64_t i_ = 0;
  Permutation perm_;
};

class Gappy : public OffsetGenerator {
 public:
  Gappy(Region r, uint32_t read, uint32_t skip) : r_(r), read_(read), stride_(uint64_t(read) + skip) {
    CheckRegion(r_);
    if (read == 0) throw std::invalid_argument("gappy_read must be > 0");
    const uint64_t n = r_.blocks();
    per_pass_ = n / stride_ * read_ + std::min<uint64_t>(n % stride_, read_);
  }
  uint64_t Next() override {
    const uint64_t block = i_ / read_ * stride_ + i_ % read_;
    if (++i_ == per_pass_) i_ = 0;
    return r_.offset + block * r_.bs;
  }
  uint64_t blocks_per_pass() const override { return per_pass_; }

 private:
  Region r_;
  uint64_t read_;
  uint64_t stride_;
  uint64_t per_pass_ = 0;
  uint64_t i_ = 0;
};

}  // namespace

Permutation::Permutation(uint64_t n, uint64_t key) : n_(n), key_(key) {
  assert(n > 0);
  // Smallest 2k >= log2(n) with k >= 1, so cycle-walking needs < 4 steps on average.
  const int bits = n <= 1 ? 1 : 64 - std::countl_zero(n - 1);
  half_bits_ = std::max(1, (bits + 1) / 2);
  half_mask_ = (uint64_t(1) << half_bits_) - 1;
}

uint64_t Permutation::Round(uint64_t half, int round) const {
  return Mix(key_ ^ Mix(half + (uint64_t(round) << 58))) & half_mask_;
}

uint64_t Permutation::operator()(uint64_t i) const {
  assert(i < n_);
  uint64_t x = i;
  // Feistel rounds are invertible whatever Round() is, so each application is a
  // bijection on [0, 4^k); re-applying until the value lands in [0, n) restricts it
  // to a bijection on [0, n) (cycle-walking).
  do {
    uint64_t left = x >> half_bits_, right = x & half_mask_;
    for (int r = 0; r < 4; ++r) {
      const uint64_t next = left ^ Round(right, r);
      left = right;
      right = next;
    }
    x = (left << half_bits_) | right;
  } while (x >= n_);
  return x;
}

std::unique_ptr<OffsetGenerator> MakeSequential(Region region) {
  return std::make_unique<Sequential>(region);
}
std::unique_ptr<OffsetGenerator> MakeRandom(Region region, uint64_t seed) {
  return std::make_unique<Random>(region, seed);
}
std::unique_ptr<OffsetGenerator> MakeGappy(Region region, uint32_t read, uint32_t skip) {
  return std::make_unique<Gappy>(region, read, skip);
}

std::unique_ptr<OffsetGenerator> MakeOffsetGenerator(const JobSpec& spec, uint64_t region_size) {
  const Region region{.offset = spec.offset, .size = region_size, .bs = spec.bs};
  switch (spec.pattern) {
    case Pattern::Sequential: return MakeSequential(region);
    case Pattern::Random: return MakeRandom(region, spec.seed);
    case Pattern::Gappy: return MakeGappy(region, spec.gappy_read, spec.gappy_skip);
  }
  throw std::invalid_argument("unknown pattern " + std::to_string(int(spec.pattern)));
}

}  // namespace storbed

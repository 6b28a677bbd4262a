#include "pattern.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

#include "split_mix64.h"

namespace storbed {
namespace {

void CheckRegion(const Region& r) {
  if (r.bs == 0) throw std::invalid_argument("bs must be > 0");
  if (r.blocks() == 0)
    throw std::invalid_argument("region of " + std::to_string(r.size) +
                                " bytes holds no whole block of bs=" + std::to_string(r.bs));
}

// The region itself once CheckRegion passes: for members that must be checked before the
// ones built from them.
Region Checked(Region r) {
  CheckRegion(r);
  return r;
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

// Indices [0, n) each once per pass, in an order fixed by (seed, pass number).
class PermWalker {
 public:
  PermWalker(uint64_t n, uint64_t seed) : n_(n), seed_(seed), perm_(n, Key(seed, 0)) {}
  uint64_t Next() {
    const uint64_t x = perm_(i_);
    if (++i_ == n_) {
      i_ = 0;
      perm_ = Permutation(n_, Key(seed_, ++pass_));
    }
    return x;
  }

 private:
  static uint64_t Key(uint64_t seed, uint64_t pass) {
    return SplitMix64Hash(seed ^ SplitMix64Hash(pass));
  }
  uint64_t n_;
  uint64_t seed_;
  uint64_t pass_ = 0;
  uint64_t i_ = 0;
  Permutation perm_;
};

// The sampling generators' stream: SplitMix64 one step on from its seed (the stream these
// patterns have drawn since they were written, so a seed still picks the same offsets).
SplitMix64 SamplingStream(uint64_t seed) { return SplitMix64(seed + kSplitMix64Gamma); }

class Random : public OffsetGenerator {
 public:
  Random(Region r, uint64_t seed) : r_(Checked(r)), walk_(r_.blocks(), seed) {}
  uint64_t Next() override { return r_.offset + walk_.Next() * r_.bs; }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  Region r_;
  PermWalker walk_;
};

class Strided : public OffsetGenerator {
 public:
  Strided(Region r, uint32_t stride) : r_(r), stride_(stride) {
    CheckRegion(r_);
    if (stride == 0) throw std::invalid_argument("stride_blocks must be > 0");
    lanes_ = std::min<uint64_t>(stride_, r_.blocks());
  }
  uint64_t Next() override {
    const uint64_t off = r_.offset + block_ * r_.bs;
    block_ += stride_;
    if (block_ >= r_.blocks()) {
      if (++lane_ == lanes_) lane_ = 0;
      block_ = lane_;
    }
    return off;
  }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  Region r_;
  uint64_t stride_;
  uint64_t lanes_ = 1;
  uint64_t lane_ = 0;
  uint64_t block_ = 0;
};

// Rejection-inversion sampling of Zipf ranks in [1, n] (Hoermann and Derflinger, "Rejection-
// inversion to generate variates from monotone discrete distributions", 1996; the same
// algorithm as Apache Commons RNG). Constant memory and time whatever n is, where a CDF
// table would need 8 bytes per block.
class ZipfRanks {
 public:
  ZipfRanks(uint64_t n, double theta) : n_(n), theta_(theta) {
    if (!(theta > 0) || !std::isfinite(theta))
      throw std::invalid_argument("zipf_theta must be > 0, got " + std::to_string(theta));
    h_x1_ = H(1.5) - 1.0;
    h_n_ = H(double(n) + 0.5);
    s_ = 2.0 - HInverse(H(2.5) - Density(2.0));
  }
  uint64_t Sample(SplitMix64& rng) const {
    for (;;) {
      const double u = h_n_ + rng.Uniform() * (h_x1_ - h_n_);
      const double x = HInverse(u);
      double k = std::floor(x + 0.5);
      k = std::clamp(k, 1.0, double(n_));
      if (k - x <= s_ || u >= H(k + 0.5) - Density(k)) return uint64_t(k);
    }
  }

 private:
  // log1p(x)/x and expm1(x)/x, with their series near 0 where the quotient loses digits.
  static double Helper1(double x) {
    return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
  }
  static double Helper2(double x) {
    return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
  }
  double Density(double x) const { return std::exp(-theta_ * std::log(x)); }
  // An integral of Density, well defined at theta = 1 too.
  double H(double x) const {
    const double log_x = std::log(x);
    return Helper2((1 - theta_) * log_x) * log_x;
  }
  double HInverse(double x) const {
    const double t = std::max(-1.0, x * (1 - theta_));
    return std::exp(Helper1(t) * x);
  }
  uint64_t n_;
  double theta_;
  double h_x1_ = 0, h_n_ = 0, s_ = 0;
};

class Zipf : public OffsetGenerator {
 public:
  Zipf(Region r, double theta, uint64_t seed)
      : r_(r),
        ranks_((CheckRegion(r), r.blocks()), theta),
        rng_(SamplingStream(SplitMix64Hash(seed))),
        scatter_(r.blocks(), SplitMix64Hash(seed ^ 0x5a17f00dull)) {}
  uint64_t Next() override { return r_.offset + scatter_(ranks_.Sample(rng_) - 1) * r_.bs; }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  Region r_;
  ZipfRanks ranks_;
  SplitMix64 rng_;
  Permutation scatter_;  // rank - 1 -> block
};

class HotCold : public OffsetGenerator {
 public:
  HotCold(Region r, double hot_fraction, double hot_pct, uint64_t seed)
      : r_(r),
        zone_((CheckRegion(r), HotColdZone(r.blocks(), hot_fraction, seed))),
        hot_p_(hot_pct / 100),
        rng_(SamplingStream(SplitMix64Hash(seed ^ 0x407c01dull))),
        hot_(zone_.count, SplitMix64Hash(seed + 1)),
        cold_(std::max<uint64_t>(1, r.blocks() - zone_.count), SplitMix64Hash(seed + 2)) {
    if (!(hot_pct >= 0 && hot_pct <= 100))
      throw std::invalid_argument("hot_pct must be in [0, 100], got " + std::to_string(hot_pct));
  }
  uint64_t Next() override {
    const uint64_t cold_blocks = r_.blocks() - zone_.count;
    uint64_t block;
    if (cold_blocks == 0 || rng_.Uniform() < hot_p_) {
      block = zone_.first + hot_.Next();
    } else {
      // The cold blocks are the ones before the zone and the ones after it.
      const uint64_t c = cold_.Next();
      block = c < zone_.first ? c : c + zone_.count;
    }
    return r_.offset + block * r_.bs;
  }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  Region r_;
  BlockRange zone_;
  double hot_p_;
  SplitMix64 rng_;
  PermWalker hot_;
  PermWalker cold_;
};

class RandomRuns : public OffsetGenerator {
 public:
  RandomRuns(Region r, uint32_t run, uint64_t seed)
      : r_(Checked(r)), run_(run), walk_((r_.blocks() + run - 1) / run, seed) {}
  uint64_t Next() override {
    if (left_ == 0) {
      block_ = walk_.Next() * run_;
      left_ = std::min<uint64_t>(run_, r_.blocks() - block_);
    }
    --left_;
    return r_.offset + block_++ * r_.bs;
  }
  uint64_t blocks_per_pass() const override { return r_.blocks(); }

 private:
  Region r_;
  uint64_t run_;
  PermWalker walk_;
  uint64_t block_ = 0;  // the next block of the current run
  uint64_t left_ = 0;   // blocks left in it
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
  return SplitMix64Hash(key_ ^ SplitMix64Hash(half + (uint64_t(round) << 58))) & half_mask_;
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
std::unique_ptr<OffsetGenerator> MakeRandomRuns(Region region, uint32_t run, uint64_t seed) {
  if (run == 0) throw std::invalid_argument("random_run must be > 0");
  if (run == 1) return MakeRandom(region, seed);
  return std::make_unique<RandomRuns>(region, run, seed);
}
std::unique_ptr<OffsetGenerator> MakeGappy(Region region, uint32_t read, uint32_t skip) {
  return std::make_unique<Gappy>(region, read, skip);
}

std::unique_ptr<OffsetGenerator> MakeStrided(Region region, uint32_t stride_blocks) {
  return std::make_unique<Strided>(region, stride_blocks);
}
std::unique_ptr<OffsetGenerator> MakeZipf(Region region, double theta, uint64_t seed) {
  return std::make_unique<Zipf>(region, theta, seed);
}
std::unique_ptr<OffsetGenerator> MakeHotCold(Region region, double hot_fraction, double hot_pct,
                                             uint64_t seed) {
  return std::make_unique<HotCold>(region, hot_fraction, hot_pct, seed);
}

BlockRange HotColdZone(uint64_t blocks, double hot_fraction, uint64_t seed) {
  if (!(hot_fraction > 0 && hot_fraction <= 1))
    throw std::invalid_argument("hot_fraction must be in (0, 1], got " +
                                std::to_string(hot_fraction));
  const uint64_t count =
      std::clamp<uint64_t>(uint64_t(std::llround(hot_fraction * double(blocks))), 1, blocks);
  return {.first = SplitMix64Hash(seed ^ 0x2011edull) % (blocks - count + 1), .count = count};
}

std::unique_ptr<OffsetGenerator> MakeOffsetGenerator(const JobSpec& spec, uint64_t region_size) {
  const Region region{.offset = spec.offset, .size = region_size, .bs = spec.bs};
  switch (spec.pattern) {
    case Pattern::Sequential: return MakeSequential(region);
    case Pattern::Gappy: return MakeGappy(region, spec.gappy_read, spec.gappy_skip);
    case Pattern::Strided: return MakeStrided(region, spec.stride_blocks);
    case Pattern::Random:
      switch (spec.distribution) {
        case Distribution::Uniform: return MakeRandomRuns(region, spec.random_run, spec.seed);
        case Distribution::Zipf: return MakeZipf(region, spec.zipf_theta, spec.seed);
        case Distribution::HotCold:
          return MakeHotCold(region, spec.hot_fraction, spec.hot_pct, spec.seed);
      }
      throw std::invalid_argument("unknown distribution " +
                                  std::to_string(int(spec.distribution)));
  }
  throw std::invalid_argument("unknown pattern " + std::to_string(int(spec.pattern)));
}

}  // namespace storbed

// SplitMix64 (Steele, Lea and Flood, 2014): the agent's one seeded generator and hash. Cheap
// and well mixed; the same seed draws the same sequence on every host and build.
#pragma once

#include <cstdint>

namespace storbed {

inline constexpr uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ull;

// The finaliser: a bijective mix of 64 bits.
inline uint64_t SplitMix64Finalise(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// One step from `x`: a hash of x (SplitMix64 seeded with x, first output).
inline uint64_t SplitMix64Hash(uint64_t x) { return SplitMix64Finalise(x + kSplitMix64Gamma); }

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t Next() { return SplitMix64Finalise(state_ += kSplitMix64Gamma); }
  // Uniform in [0, 1), from the top 53 bits.
  double Uniform() { return double(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace storbed

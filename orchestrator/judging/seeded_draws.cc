#include "judging/seeded_draws.h"

#include <cmath>

namespace storbed {

double SeededDraws::Uniform() {
  // 53 random bits, shifted half a step off 0: (k + 0.5) / 2^53.
  return (double(rng_() >> 11) + 0.5) * 0x1.0p-53;
}

double SeededDraws::Normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double r = std::sqrt(-2 * std::log(Uniform()));
  const double a = 2 * M_PI * Uniform();
  spare_ = r * std::sin(a);
  has_spare_ = true;
  return r * std::cos(a);
}

double SeededDraws::ChiSquare(size_t df) {
  if (df <= 100) {
    double s = 0;
    for (size_t i = 0; i < df; ++i) {
      const double z = Normal();
      s += z * z;
    }
    return s;
  }
  // Wilson-Hilferty: (X/df)^(1/3) is nearly normal with mean 1 - 2/(9 df).
  const double v = 2.0 / (9.0 * double(df));
  const double c = 1 - v + Normal() * std::sqrt(v);
  return double(df) * c * c * c;
}

uint64_t DerivedSeed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (uint64_t part : {a, b, c, d}) {
    x ^= part + 0x9E3779B97F4A7C15ull + (x << 6) + (x >> 2);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
  }
  return x;
}

}  // namespace storbed

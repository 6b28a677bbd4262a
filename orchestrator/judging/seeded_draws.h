// Seeded random draws that give the same numbers with every standard library: the
// generator is std::mt19937_64 (fixed by the standard), and uniforms, normals and
// chi-square variates are made from its raw output here, not by the library's
// distribution objects, whose algorithms differ. Simulations and resampling use these so
// a seed reproduces a report or a calibration table.
#pragma once

#include <cstdint>
#include <random>

namespace storbed {

class SeededDraws {
 public:
  explicit SeededDraws(uint64_t seed) : rng_(seed) {}
  // Uniform in (0, 1), never 0 or 1.
  double Uniform();
  // Standard normal (Box-Muller; the second value of a pair is kept for the next call).
  double Normal();
  // Chi-square with `df` degrees of freedom (sum of squares up to 100, Wilson-Hilferty
  // beyond).
  double ChiSquare(size_t df);
  // A whole number in [0, n).
  uint64_t Below(uint64_t n) { return rng_() % n; }

 private:
  std::mt19937_64 rng_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// A seed derived from a key (SplitMix64 finaliser over the parts): the same key gives the
// same stream whatever else was drawn before.
uint64_t DerivedSeed(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0);

}  // namespace storbed

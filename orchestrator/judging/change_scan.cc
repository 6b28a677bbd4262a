#include "judging/change_scan.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "judging/seeded_draws.h"
#include "median.h"

namespace storbed {
namespace {

// A candidate: the levels [begin, end) against the rest, its standardization folded in.
struct Candidate {
  size_t begin, end;
  double weight;
};

// Single splits as [0, k); intervals inside as [b, e) with b, e - b and n - e >= min each.
std::vector<Candidate> Candidates(size_t n, size_t min, bool splits_only) {
  std::vector<Candidate> out;
  for (size_t b = 0; b < n; ++b) {
    if (b > 0 && (b < min || splits_only)) continue;
    for (size_t e = b + min; e + (b == 0 ? min : 0) <= n; ++e) {
      if (b > 0 && (e == n || n - e < min)) continue;  // [b, n) is the split at b
      const size_t m = e - b;
      const double w = 1 / std::sqrt(double(m) * double(n - m) / double(n));
      out.push_back({b, e, b > 0 ? w * kInteriorWeight : w});
    }
  }
  return out;
}

void PrefixSums(const std::vector<double>& s, std::vector<double>& prefix) {
  prefix.assign(s.size() + 1, 0.0);
  for (size_t i = 0; i < s.size(); ++i) prefix[i + 1] = prefix[i] + s[i];
}

double Rating(const std::vector<double>& prefix, const Candidate& c) {
  return std::abs(prefix[c.end] - prefix[c.begin]) * c.weight;
}

// Every ordering counted: the scan of single splits reads only the prefix sets.
double ExactP(const std::vector<double>& s, size_t min, double reach) {
  const size_t n = s.size();
  std::vector<double> sum(size_t(1) << n, 0.0);
  return ShareOfOrderingsReaching(n, [&](size_t mask) {
    sum[mask] = sum[mask & (mask - 1)] + s[std::countr_zero(mask)];
    const size_t k = std::popcount(mask);
    return k >= min && n - k >= min &&
           std::abs(sum[mask]) / std::sqrt(double(k) * double(n - k) / double(n)) >= reach;
  });
}

// Drawn orderings. Once so many reached that p cannot end at or below max_p, the draws stop
// and p is estimated from those drawn (Besag and Clifford's sequential p): most segments
// hold no change, and they are decided after a few dozen orderings.
double PermutationP(std::vector<double> s, const std::vector<Candidate>& candidates, double reach,
                    const ChangeScanOptions& o) {
  SeededDraws draws(o.seed);
  std::vector<double> prefix;
  const double enough = o.max_p * double(1 + o.permutations);
  size_t reached = 0, drawn = 0;
  while (drawn < o.permutations && double(1 + reached) <= enough) {
    ++drawn;
    for (size_t i = s.size() - 1; i > 0; --i) std::swap(s[i], s[draws.Below(i + 1)]);
    PrefixSums(s, prefix);
    for (const Candidate& c : candidates)
      if (Rating(prefix, c) >= reach) {
        ++reached;
        break;
      }
  }
  if (drawn < o.permutations) return std::min(1.0, double(1 + reached) / double(1 + drawn));
  return double(1 + reached) / double(1 + o.permutations);
}

// The scan of `x` (already logged).
ScanResult Scan(const std::vector<double>& x, const ChangeScanOptions& o) {
  const size_t n = x.size(), min = std::max<size_t>(o.min_nights, 1);
  ScanResult r;
  if (n < 2 * min) return r;
  const std::vector<double> s = CentredScores(x, min - 1);
  r.exact = n <= kExactScanNights;
  const std::vector<Candidate> candidates = Candidates(n, min, r.exact);
  std::vector<double> prefix;
  PrefixSums(s, prefix);
  double top = 0;
  for (const Candidate& c : candidates)
    if (const double v = Rating(prefix, c); v > top) {
      top = v;
      r.begin = c.begin;
      r.end = c.end;
    }
  if (top <= 0) return r;
  // The same partition summed in another order differs in the last bits: count it as reached.
  const double reach = top * (1 - 1e-9);
  r.p = r.exact ? ExactP(s, min, reach) : PermutationP(s, candidates, reach, o);
  return r;
}

void Segment(const std::vector<double>& x, size_t from, size_t to, const ChangeScanOptions& o,
             std::vector<LevelChange>& found) {
  const ScanResult r = Scan({x.begin() + from, x.begin() + to}, o);
  if (r.p > o.max_p) return;
  std::vector<size_t> bounds = {from};
  if (r.begin > 0) bounds.push_back(from + r.begin);
  if (from + r.end < to) bounds.push_back(from + r.end);
  bounds.push_back(to);
  for (size_t i = 1; i + 1 < bounds.size(); ++i) found.push_back({bounds[i], 0, 0, 0, r.p});
  for (size_t i = 0; i + 1 < bounds.size(); ++i) Segment(x, bounds[i], bounds[i + 1], o, found);
}

// Fills before, after and ratio of each change from the medians of the segments between.
void Measure(const std::vector<double>& levels, std::vector<LevelChange>& changes) {
  std::vector<double> medians;
  for (size_t i = 0; i <= changes.size(); ++i) {
    const size_t from = i == 0 ? 0 : changes[i - 1].index;
    const size_t to = i == changes.size() ? levels.size() : changes[i].index;
    medians.push_back(Median({levels.begin() + from, levels.begin() + to}));
  }
  for (size_t i = 0; i < changes.size(); ++i) {
    changes[i].before = medians[i];
    changes[i].after = medians[i + 1];
    changes[i].ratio = medians[i] != 0 ? medians[i + 1] / medians[i] : 0;
  }
}

}  // namespace

double ShareOfOrderingsReaching(size_t n, const std::function<bool(size_t mask)>& reaches) {
  const size_t full = (size_t(1) << n) - 1;
  std::vector<uint64_t> below(full + 1, 0);  // orderings of the set none of whose prefixes reach
  below[0] = 1;
  for (size_t mask = 1; mask <= full; ++mask) {
    if (mask != full && reaches(mask)) continue;
    for (size_t rest = mask; rest; rest &= rest - 1)
      below[mask] += below[mask ^ (rest & (~rest + 1))];
  }
  double orderings = 1;
  for (size_t i = 2; i <= n; ++i) orderings *= double(i);
  return 1 - double(below[full]) / orderings;
}

std::vector<double> CentredScores(const std::vector<double>& x, size_t odd) {
  std::vector<double> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  const double lo = sorted[odd], hi = sorted[x.size() - 1 - odd];
  std::vector<double> s;
  double mean = 0;
  for (double v : x) {
    s.push_back(std::clamp(v, lo, hi));
    mean += s.back();
  }
  mean /= double(x.size());
  for (double& v : s) v -= mean;
  return s;
}

std::vector<double> LoggedLevels(const std::vector<double>& levels) {
  for (double v : levels)
    if (!std::isfinite(v)) throw std::invalid_argument("change scan of a level that is not finite");
  const bool positive = std::all_of(levels.begin(), levels.end(), [](double v) { return v > 0; });
  std::vector<double> x = levels;
  if (positive)
    for (double& v : x) v = std::log(v);
  return x;
}

ScanResult ScanLevels(const std::vector<double>& levels, const ChangeScanOptions& options) {
  return Scan(LoggedLevels(levels), options);
}

std::vector<LevelChange> FindLevelChanges(const std::vector<double>& levels,
                                          const ChangeScanOptions& options) {
  std::vector<LevelChange> changes;
  Segment(LoggedLevels(levels), 0, levels.size(), options, changes);
  std::sort(changes.begin(), changes.end(),
            [](const LevelChange& a, const LevelChange& b) { return a.index < b.index; });
  // The minimum change, smallest first: dropping one merges two segments, which moves the
  // medians its neighbours are judged by.
  while (!changes.empty()) {
    Measure(levels, changes);
    auto small = changes.end();
    for (auto it = changes.begin(); it != changes.end(); ++it)
      if (std::abs(it->ratio - 1) < options.min_change &&
          (small == changes.end() || std::abs(it->ratio - 1) < std::abs(small->ratio - 1)))
        small = it;
    if (small == changes.end()) break;
    changes.erase(small);
  }
  return changes;
}

}  // namespace storbed

#include "judging/joint_change_scan.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "judging/change_scan.h"
#include "judging/seeded_draws.h"
#include "median.h"

namespace storbed {
namespace {

constexpr double kInvalid = -1;

// One segment's series: each one's scores at the indices where it has a level (0 where it
// has none), scaled to a root mean square of 1, so every series weighs alike.
struct SegmentSeries {
  std::vector<std::vector<double>> score;  // [series][index in segment]
  std::vector<std::vector<bool>> present;  // [series][index in segment]
  std::vector<size_t> count;               // levels per series
};

SegmentSeries ScoreSegment(const std::vector<std::vector<double>>& x, size_t from, size_t to,
                           size_t min) {
  SegmentSeries out;
  for (const std::vector<double>& series : x) {
    std::vector<double> present_levels;
    std::vector<bool> present;
    for (size_t i = from; i < to; ++i) {
      present.push_back(!std::isnan(series[i]));
      if (present.back()) present_levels.push_back(series[i]);
    }
    std::vector<double> score(to - from, 0.0);
    if (!present_levels.empty()) {
      const std::vector<double> s = CentredScores(present_levels, min - 1);
      double squares = 0;
      for (double v : s) squares += v * v;
      const double rms = std::sqrt(squares / double(s.size()));
      for (size_t i = 0, j = 0; i < score.size(); ++i)
        if (present[i]) score[i] = rms > 0 ? s[j++] / rms : 0;
    }
    out.score.push_back(std::move(score));
    out.present.push_back(std::move(present));
    out.count.push_back(present_levels.size());
  }
  return out;
}

// A series' standardized split statistic, in the direction "after minus before", from the
// sum and count of its scores before the split; NaN when a side has fewer than min levels.
double SplitZ(double before_sum, size_t before, size_t total, size_t min) {
  if (before < min || total - before < min) return std::numeric_limits<double>::quiet_NaN();
  const double m = double(before), n = double(total);
  return -before_sum / std::sqrt(m * (n - m) / n);
}

// The joint rating of one prefix set (the indices before the split), given each series'
// score sum and level count in it: |sum of z| / sqrt(series), or kInvalid when some series
// lacks min levels on a side. `skip` leaves one series out (the others' rating).
double JointRating(const std::vector<double>& sums, const std::vector<size_t>& counts,
                   const SegmentSeries& seg, size_t min, size_t skip, double* signed_sum) {
  double total = 0;
  size_t used = 0;
  for (size_t h = 0; h < sums.size(); ++h) {
    const double z = SplitZ(sums[h], counts[h], seg.count[h], min);
    if (std::isnan(z)) return kInvalid;
    if (h == skip) continue;
    total += z;
    ++used;
  }
  if (signed_sum) *signed_sum = total;
  return std::abs(total) / std::sqrt(double(used));
}

// The ratings of the splits of the segment in its own order: [k] for the split before k.
struct SplitRatings {
  std::vector<double> rating, signed_sum;
};

SplitRatings RateSplits(const SegmentSeries& seg, size_t min, size_t skip) {
  const size_t n = seg.score.empty() ? 0 : seg.score[0].size(), series = seg.score.size();
  SplitRatings out{std::vector<double>(n, kInvalid), std::vector<double>(n, 0)};
  std::vector<double> sums(series, 0);
  std::vector<size_t> counts(series, 0);
  for (size_t k = 1; k < n; ++k) {
    for (size_t h = 0; h < series; ++h) {
      sums[h] += seg.score[h][k - 1];
      counts[h] += seg.present[h][k - 1];
    }
    out.rating[k] = JointRating(sums, counts, seg, min, skip, &out.signed_sum[k]);
  }
  return out;
}

// Every ordering of the indices counted through its prefix sets (ShareOfOrderingsReaching, with
// the joint rating of a set): the share whose scan reaches `reach`.
double ExactJointP(const SegmentSeries& seg, size_t min, double reach) {
  const size_t n = seg.score[0].size(), series = seg.score.size();
  std::vector<double> sums((size_t(1) << n) * series, 0.0);
  std::vector<size_t> counts((size_t(1) << n) * series, 0);
  std::vector<double> set_sums(series);
  std::vector<size_t> set_counts(series);
  return ShareOfOrderingsReaching(n, [&](size_t mask) {
    const size_t parent = mask & (mask - 1), index = std::countr_zero(mask);
    for (size_t h = 0; h < series; ++h) {
      set_sums[h] = sums[mask * series + h] = sums[parent * series + h] + seg.score[h][index];
      set_counts[h] = counts[mask * series + h] =
          counts[parent * series + h] + seg.present[h][index];
    }
    return JointRating(set_sums, set_counts, seg, min, series, nullptr) >= reach;
  });
}

// Drawn orderings, stopped once p cannot come to max_p (change_scan's PermutationP).
double DrawnJointP(const SegmentSeries& seg, size_t min, double reach, const JointScanOptions& o) {
  const size_t n = seg.score[0].size(), series = seg.score.size();
  SeededDraws draws(o.seed);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  const double enough = o.max_p * double(1 + o.permutations);
  size_t reached = 0, drawn = 0;
  std::vector<double> sums(series);
  std::vector<size_t> counts(series);
  while (drawn < o.permutations && double(1 + reached) <= enough) {
    ++drawn;
    for (size_t i = n - 1; i > 0; --i) std::swap(order[i], order[draws.Below(i + 1)]);
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), 0);
    for (size_t k = 1; k < n; ++k) {
      for (size_t h = 0; h < series; ++h) {
        sums[h] += seg.score[h][order[k - 1]];
        counts[h] += seg.present[h][order[k - 1]];
      }
      if (JointRating(sums, counts, seg, min, series, nullptr) >= reach) {
        ++reached;
        break;
      }
    }
  }
  if (drawn < o.permutations) return std::min(1.0, double(1 + reached) / double(1 + drawn));
  return double(1 + reached) / double(1 + o.permutations);
}

double Choose(size_t n, size_t k) {
  double c = 1;
  for (size_t i = 1; i <= k; ++i) c = c * double(n - k + i) / double(i);
  return c;
}

// One series' own step: the share of the splits of its levels into `after` of them and the
// rest whose after-sum, times `direction`, reaches the observed one. Exact (every subset)
// up to kExactSubsets, else drawn.
double SeriesStepP(std::vector<double> scores, size_t after, double observed, double direction,
                   const JointScanOptions& o) {
  const double reach = direction * observed - 1e-9 * std::abs(observed);
  const size_t n = scores.size();
  if (Choose(n, after) <= double(kExactSubsets)) {
    size_t reached = 0, total = 0;
    std::vector<bool> pick(n, false);
    std::fill(pick.end() - after, pick.end(), true);
    do {
      double sum = 0;
      for (size_t i = 0; i < n; ++i)
        if (pick[i]) sum += scores[i];
      reached += direction * sum >= reach;
      ++total;
    } while (std::next_permutation(pick.begin(), pick.end()));
    return double(reached) / double(total);
  }
  SeededDraws draws(DerivedSeed(o.seed, n, after));
  size_t reached = 0;
  for (size_t d = 0; d < o.permutations; ++d) {
    double sum = 0;
    for (size_t i = 0; i < after; ++i) {
      std::swap(scores[i], scores[i + draws.Below(n - i)]);
      sum += scores[i];
    }
    reached += direction * sum >= reach;
  }
  return double(1 + reached) / double(1 + o.permutations);
}

struct Segmenter {
  const std::vector<std::vector<double>>& raw;  // the levels as given
  const std::vector<std::vector<double>>& x;    // logged
  const JointScanOptions& o;
  size_t min;
  std::vector<JointStep> found;

  bool EnoughLevels(size_t from, size_t to) const {
    for (const std::vector<double>& series : x) {
      size_t n = 0;
      for (size_t i = from; i < to; ++i) n += !std::isnan(series[i]);
      if (n < 2 * min) return false;
    }
    return true;
  }

  double SegmentMedian(size_t h, size_t from, size_t to) const {
    std::vector<double> v;
    for (size_t i = from; i < to; ++i)
      if (!std::isnan(raw[h][i])) v.push_back(raw[h][i]);
    return Median(v);
  }

  // Stage 2 at the joint cut `cut` (direction `direction`): each series' p at the split the
  // others place, or 1 where they place it elsewhere or the other way.
  std::vector<double> EverySeriesP(const SegmentSeries& seg, size_t cut, double direction) const {
    std::vector<double> out;
    for (size_t h = 0; h < seg.score.size(); ++h) {
      const SplitRatings others = RateSplits(seg, min, h);
      const size_t k =
          std::max_element(others.rating.begin(), others.rating.end()) - others.rating.begin();
      const double sign = others.signed_sum[k] >= 0 ? 1 : -1;
      if (others.rating[k] <= 0 || sign != direction || (k > cut ? k - cut : cut - k) > o.within) {
        out.push_back(1);
        continue;
      }
      std::vector<double> scores;
      double after_sum = 0;
      size_t after = 0;
      for (size_t i = 0; i < seg.score[h].size(); ++i) {
        if (!seg.present[h][i]) continue;
        scores.push_back(seg.score[h][i]);
        if (i >= k) {
          after_sum += seg.score[h][i];
          ++after;
        }
      }
      out.push_back(SeriesStepP(scores, after, after_sum, direction, o));
    }
    return out;
  }

  void Segment(size_t from, size_t to) {
    if (!EnoughLevels(from, to)) return;
    const SegmentSeries seg = ScoreSegment(x, from, to, min);
    const size_t series = seg.score.size();
    const SplitRatings splits = RateSplits(seg, min, series);
    const size_t cut =
        std::max_element(splits.rating.begin(), splits.rating.end()) - splits.rating.begin();
    const double top = splits.rating[cut];
    if (top <= 0) return;
    const double reach = top * (1 - 1e-9);
    const size_t n = to - from;
    const double p =
        n <= kExactJointNights ? ExactJointP(seg, min, reach) : DrawnJointP(seg, min, reach, o);
    if (p > o.max_p) return;
    const double direction = splits.signed_sum[cut] >= 0 ? 1 : -1;
    JointStep step{from + cut, p, {}, EverySeriesP(seg, cut, direction)};
    std::vector<double> moved;
    for (size_t h = 0; h < series; ++h) {
      const double before = SegmentMedian(h, from, from + cut);
      step.ratios.push_back(before != 0 ? SegmentMedian(h, from + cut, to) / before : 0);
      moved.push_back(std::abs(step.ratios.back() - 1));
    }
    const bool every = std::all_of(step.series_p.begin(), step.series_p.end(),
                                   [&](double sp) { return sp <= o.series_p; });
    if (every && Median(moved) >= o.min_change) found.push_back(std::move(step));
    Segment(from, from + cut);
    Segment(from + cut, to);
  }
};

}  // namespace

std::vector<JointStep> FindJointSteps(const std::vector<std::vector<double>>& levels,
                                      const JointScanOptions& options) {
  if (levels.size() < 2) return {};
  const size_t n = levels[0].size();
  std::vector<std::vector<double>> x;
  for (const std::vector<double>& series : levels) {
    if (series.size() != n)
      throw std::invalid_argument("joint change scan of series of different lengths");
    std::vector<double> present;
    for (double v : series)
      if (!std::isnan(v)) present.push_back(v);
    const std::vector<double> logged = LoggedLevels(present);
    std::vector<double> row(n, std::numeric_limits<double>::quiet_NaN());
    for (size_t i = 0, j = 0; i < n; ++i)
      if (!std::isnan(series[i])) row[i] = logged[j++];
    x.push_back(std::move(row));
  }
  Segmenter s{levels, x, options, std::max<size_t>(options.min_nights, 1), {}};
  s.Segment(0, n);
  std::sort(s.found.begin(), s.found.end(),
            [](const JointStep& a, const JointStep& b) { return a.index < b.index; });
  return s.found;
}

}  // namespace storbed

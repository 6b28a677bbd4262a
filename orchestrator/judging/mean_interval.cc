#include "judging/mean_interval.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>

#include "judging/verdict.h"

namespace storbed {
namespace {

// Standard errors the lag-1 figure is raised by before it is trusted (see the header).
constexpr double kPhiRaise = 2.0;
constexpr double kMaxPhi = 0.999;
constexpr size_t kBatches = 10;

// "about 4 effective samples", "less than 1 effective sample".
std::string Effective(double effective, const char* unit) {
  if (effective < 1) return std::string("less than 1 effective ") + unit;
  const double n = std::floor(effective + 0.5);
  return "about " + FixedText(n, "%.0f") + " effective" + (unit[0] ? std::string(" ") + unit : "") +
         (n == 1 || !unit[0] ? "" : "s");
}

// Maximal stretches on one side of the mean; a sample equal to it continues the stretch.
uint64_t RunsAboutMean(const std::vector<double>& x, double mean) {
  uint64_t runs = 0;
  int side = 0;
  for (double v : x) {
    const int s = v > mean ? 1 : v < mean ? -1 : 0;
    if (s != 0 && s != side) {
      ++runs;
      side = s;
    }
  }
  return runs;
}

// Samples per independent one as the spread of `kBatches` consecutive batch means shows it
// (0 when there are too few samples for batches of two).
double BatchTau(const std::vector<double>& x, double var) {
  const size_t n = x.size();
  if (n < 2 * kBatches || var <= 0) return 0;
  std::vector<double> means;
  for (size_t b = 0; b < kBatches; ++b) {
    const size_t from = b * n / kBatches, to = (b + 1) * n / kBatches;
    double s = 0;
    for (size_t i = from; i < to; ++i) s += x[i];
    means.push_back(s / double(to - from));
  }
  double grand = 0;
  for (double m : means) grand += m;
  grand /= double(kBatches);
  double ss = 0;
  for (double m : means) ss += (m - grand) * (m - grand);
  return double(n) / double(kBatches) * (ss / double(kBatches - 1)) / var;
}

// How alike successive samples are: samples per independent one (tau), as estimated and
// as the rule counts it (the lag-1 figure raised by its error, or the batch means' figure
// where that is larger).
struct Memory {
  double autocorrelation = 0;  // lag-1, bias corrected
  double tau_estimate = 1;
  double tau = 1;
  bool batches_bind = false;
};

Memory MemoryOf(const std::vector<double>& x, double r, double var) {
  const double n = double(x.size());
  Memory m;
  // Kendall's bias of the lag-1 estimate with the mean estimated too: -(1 + 4 phi)/n.
  m.autocorrelation = std::min(r + (1 + 4 * r) / n, kMaxPhi);
  const double phi = std::clamp(m.autocorrelation, 0.0, kMaxPhi);
  const double phi_high = std::min(phi + kPhiRaise * std::sqrt((1 - phi * phi) / n), kMaxPhi);
  const double tau_batches = BatchTau(x, var);
  m.tau_estimate = std::max((1 + phi) / (1 - phi), tau_batches);
  m.tau = std::max((1 + phi_high) / (1 - phi_high), tau_batches);
  m.batches_bind = tau_batches > (1 + phi_high) / (1 - phi_high);
  return m;
}

std::string Advice(double phi) {
  // Samples closer together than the count's memory add little: only a longer job helps.
  return phi < 0.5 ? "more samples (a shorter sample period or a longer job) give more"
                   : "a longer job gives more (sampling more often adds little while "
                     "successive samples are this alike)";
}

}  // namespace

MeanInterval MeanInterval95(const std::vector<double>& x) {
  MeanInterval m;
  const size_t n = x.size();
  m.samples = n;
  if (n == 0) {
    m.basis = "no samples";
    return m;
  }
  double sum = 0;
  for (double v : x) sum += v;
  m.mean = sum / double(n);
  if (!std::isfinite(m.mean)) {
    m.basis = "a sample is not a finite number";
    return m;
  }
  if (n < 2) {
    m.basis = "one sample only";
    return m;
  }
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  if (*lo == *hi) {
    // No spread says nothing about how far the mean could be off: the count may have
    // moved between samples, and how alike successive samples are cannot be measured.
    char v[32];
    std::snprintf(v, sizeof v, "%g", *lo);
    m.basis = "all " + std::to_string(n) + " samples were " + v +
              ": no spread to judge an interval by (the count may have moved between samples)";
    return m;
  }
  double c0 = 0, c1 = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = x[i] - m.mean;
    c0 += d * d;
    if (i + 1 < n) c1 += d * (x[i + 1] - m.mean);
  }
  const double dn = double(n);
  const Memory mem = MemoryOf(x, c1 / c0, c0 / (dn - 1));
  m.autocorrelation = mem.autocorrelation;
  m.effective_samples = dn / mem.tau;
  m.runs = RunsAboutMean(x, m.mean);
  const std::string of_n = Effective(dn / mem.tau_estimate, "sample") + " of " + std::to_string(n) +
                           " (lag-1 autocorrelation " + FixedText(m.autocorrelation, "%.2f") +
                           (mem.batches_bind ? ", and the batch means drift slower still" : "") +
                           ")";
  const std::string needs = std::to_string(int(kMinEffectiveSamples));
  if (m.effective_samples < kMinEffectiveSamples) {
    m.basis = of_n +
              (dn / mem.tau_estimate < kMinEffectiveSamples
                   ? ": too few for a 95% interval, which needs " + needs
                   : ", but as few as " + FixedText(std::floor(m.effective_samples), "%.0f") +
                         " within that figure's error: too few to be sure of the " + needs +
                         " a 95% interval needs") +
              "; " + Advice(mem.autocorrelation);
    return m;
  }
  if (m.runs < kMinRuns) {
    m.basis = "the " + std::to_string(n) + " samples sit on one side of their mean in only " +
              std::to_string(m.runs) + " stretches: too few for a 95% interval, which needs " +
              std::to_string(kMinRuns) + "; a longer job gives more";
    return m;
  }
  // Half the effective samples: the error in tau about doubles that of the variance
  // estimate; with all of them, series that only just pass the minimum covered 87%.
  double df = std::min(m.effective_samples / 2, double(m.runs));
  if (mem.batches_bind) df = std::min(df, double(kBatches));
  m.df = std::max(df - 1, 1.0);
  // The spread around the sample mean understates the process variance by about tau / n.
  const double var = c0 / (dn - mem.tau);
  const boost::math::students_t t(m.df);
  m.half_width =
      boost::math::quantile(boost::math::complement(t, 0.025)) * std::sqrt(var * mem.tau / dn);
  m.available = true;
  m.basis =
      std::to_string(n) + " point samples, " + Effective(m.effective_samples, "") +
      " (lag-1 autocorrelation " + FixedText(m.autocorrelation, "%.2f") +
      (mem.batches_bind ? "; the batch means drift slower" : ", taken 2 standard errors high") +
      "), Student t on " + FixedText(m.df, "%.0f") + " df";
  return m;
}

}  // namespace storbed

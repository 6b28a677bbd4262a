#include "judging/night_model.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "judging/power.h"

namespace storbed {
namespace {

double LogMedian(std::vector<double> x) {
  for (double v : x)
    if (!std::isfinite(v) || v <= 0)
      throw std::invalid_argument("a night's level needs values above 0 that are finite numbers");
  std::sort(x.begin(), x.end());
  const size_t mid = x.size() / 2;
  return std::log(x.size() % 2 ? x[mid] : (x[mid - 1] + x[mid]) / 2);
}

std::string Percent(double shift) { return FixedText(100 * (std::exp(shift) - 1), "%.1f%%"); }

std::string Join(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

}  // namespace

ShiftTest NightShift(const std::vector<std::vector<double>>& nights,
                     const std::vector<double>& tonight, Band band) {
  if (tonight.empty()) throw std::invalid_argument("tonight has no runs to judge");
  std::vector<double> levels;
  for (const auto& night : nights)
    if (!night.empty()) levels.push_back(LogMedian(night));
  ShiftTest t;
  t.design = Design::Night;
  t.method = "tonight's median against the baseline nights' medians, t prediction interval";
  t.n_base = levels.size();
  t.n_cand = tonight.size();
  t.smallest_p = SmallestP(Design::Night, levels.size(), tonight.size());
  if (levels.empty()) return t;
  const double k = double(levels.size());
  const double mean = std::accumulate(levels.begin(), levels.end(), 0.0) / k;
  t.shift = LogMedian(tonight) - mean;
  if (levels.size() < kMinBaselineNights) return t;
  double ss = 0;
  for (double v : levels) ss += (v - mean) * (v - mean);
  t.sigma_df = levels.size() - 1;
  t.sigma = std::sqrt(ss / double(t.sigma_df));
  if (t.sigma == 0) return t;  // identical nights: no drift estimate, no test
  const boost::math::students_t dist(double(t.sigma_df));
  const double se = t.sigma * std::sqrt(1 + 1 / k);
  for (const auto& [level, ci] : {std::pair{0.95, &t.ci95}, std::pair{0.90, &t.ci90}}) {
    const double q = boost::math::quantile(boost::math::complement(dist, (1 - level) / 2));
    *ci = LogInterval{t.shift - q * se, t.shift + q * se};
  }
  const double p_below = boost::math::cdf(dist, (t.shift + band.lower) / se);
  const double p_above =
      boost::math::cdf(boost::math::complement(dist, (t.shift - band.upper) / se));
  t.direction = p_below <= p_above ? -1 : 1;
  t.p = std::min(1.0, 2 * std::min(p_below, p_above));
  return t;
}

double DriftHalfWidth(const ShiftTest& t) {
  if (t.sigma_df == 0) return 0;
  const boost::math::students_t dist(double(t.sigma_df));
  return boost::math::quantile(boost::math::complement(dist, 0.025)) * t.sigma *
         std::sqrt(1 + 1 / double(t.n_base));
}

double GuardPower(const ShiftTest& t, size_t tests, const VerdictRule& rule, double guard) {
  if (t.n_base < kMinBaselineNights || t.sigma <= 0) return 0;
  const PowerQuery q{Design::Night,
                     t.n_base,
                     t.n_cand,
                     t.sigma,
                     t.sigma_df,
                     Band::FromNoise(rule.noise).Widest(),
                     rule.alpha / double(std::max<size_t>(1, tests)),
                     kResolutionPower};
  return PowerAt(q, ChangeShift(guard));
}

std::vector<Judgement> JudgeNights(const std::vector<FamilyMember>& family, const VerdictRule& rule,
                                   double guard) {
  std::vector<Judgement> out = JudgeFamily(family, rule);
  const std::string size = std::to_string(int(std::lround(guard * 100))) + "% change";
  for (size_t i = 0; i < family.size(); ++i) {
    const ShiftTest& t = *family[i].test;
    Judgement& j = out[i];
    const double power = GuardPower(t, family.size(), rule, guard);
    j.guard_power = power;
    const std::string power_text = "power " + FixedText(power, "%.2f") + " to see a " + size;
    if (j.verdict == Verdict::Better || j.verdict == Verdict::Worse ||
        j.verdict == Verdict::NoChange) {
      j.detail = Join(j.detail, power_text);
      continue;
    }
    if (t.n_base < kMinBaselineNights) {
      j.verdict = Verdict::CannotJudge;
      j.detail = "needs " + std::to_string(kMinBaselineNights) + " baseline nights, has " +
                 std::to_string(t.n_base);
    } else if (t.sigma == 0) {
      j.verdict = Verdict::CannotJudge;
      j.detail =
          "the baseline nights did not spread (every night the same value): no drift to "
          "judge against";
    } else if (power < kResolutionPower) {
      j.verdict = Verdict::CannotJudge;
      j.detail = power_text + " (nights drift by +-" + Percent(DriftHalfWidth(t)) +
                 "); more baseline nights or a steadier host";
    } else {
      j.verdict = Verdict::WithinDrift;
      j.detail =
          "within night-to-night drift (+-" + Percent(DriftHalfWidth(t)) + "); " + power_text;
    }
  }
  return out;
}

}  // namespace storbed

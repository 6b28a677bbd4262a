#include "judging/sequential.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace storbed {
namespace {

double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double NormalDensity(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }
double UpperQuantile(double p) {  // z with P(Z > z) = p
  return boost::math::quantile(boost::math::complement(boost::math::normal(), p));
}

// The continuation region's grid on the Z scale with Simpson weights: Jennison and
// Turnbull's points (ch. 19: dense near 0, sparse in the tails, r = 16), those inside
// (-c, c) plus the boundary, and every interval's midpoint.
struct Grid {
  std::vector<double> z, w;
};

Grid MakeGrid(double c) {
  constexpr int r = 16;
  std::vector<double> x;
  for (int i = 1; i <= 6 * r - 1; ++i) {
    double v;
    if (i < r)
      v = -3 - 4 * std::log(double(r) / i);
    else if (i <= 5 * r)
      v = -3 + 3.0 * (i - r) / (2.0 * r);
    else
      v = 3 + 4 * std::log(double(r) / (6 * r - i));
    if (v > -c && v < c) x.push_back(v);
  }
  x.insert(x.begin(), -c);
  x.push_back(c);
  Grid g;
  for (size_t j = 0; j + 1 < x.size(); ++j) {
    const double d = x[j + 1] - x[j], mid = (x[j] + x[j + 1]) / 2;
    if (j == 0) {
      g.z.push_back(x[j]);
      g.w.push_back(0);
    }
    g.w.back() += d / 6;
    g.z.push_back(mid);
    g.w.push_back(4 * d / 6);
    g.z.push_back(x[j + 1]);
    g.w.push_back(d / 6);
  }
  return g;
}

// Lan-DeMets: each look's two-sided z boundary such that the chance of a first crossing
// there, under no change, is the spending function's increment.
std::vector<double> ComputeLevels(size_t max_rounds, size_t first, double alpha) {
  std::vector<double> levels;
  Grid grid;
  std::vector<double> density;  // of Z at the previous look, on the continuation region
  double spent = 0;
  size_t prev = 0;
  for (size_t k = first; k <= max_rounds; ++k) {
    const double target = std::max(0.0, PocockSpending(double(k) / max_rounds, alpha) - spent);
    double c;
    if (k == first) {
      c = target > 0 ? UpperQuantile(target / 2) : 40;
      spent += target;
      grid = MakeGrid(c);
      density.assign(grid.z.size(), 0);
      for (size_t j = 0; j < grid.z.size(); ++j) density[j] = NormalDensity(grid.z[j]);
    } else {
      const double rp = std::sqrt(double(prev)), rk = std::sqrt(double(k));
      const double sd = std::sqrt(double(k - prev));
      auto cross = [&](double b) {
        double p = 0;
        for (size_t j = 0; j < grid.z.size(); ++j) {
          const double u = grid.z[j] * rp;
          p += grid.w[j] * density[j] * (Phi((-b * rk - u) / sd) + Phi((u - b * rk) / sd));
        }
        return p;
      };
      double lo = 0, hi = 40;
      if (target <= 0) {
        c = hi;
      } else {
        for (int i = 0; i < 80; ++i) {
          const double mid = (lo + hi) / 2;
          (cross(mid) > target ? lo : hi) = mid;
        }
        c = hi;
      }
      spent += cross(c);
      Grid next = MakeGrid(c);
      std::vector<double> next_density(next.z.size(), 0);
      for (size_t i = 0; i < next.z.size(); ++i) {
        double f = 0;
        for (size_t j = 0; j < grid.z.size(); ++j)
          f += grid.w[j] * density[j] * NormalDensity((next.z[i] * rk - grid.z[j] * rp) / sd);
        next_density[i] = f * rk / sd;
      }
      grid = std::move(next);
      density = std::move(next_density);
    }
    prev = k;
    levels.push_back(std::erfc(c / std::sqrt(2.0)));
  }
  return levels;
}

double TQuantile(double two_sided, size_t df) {
  if (df == 0) return INFINITY;
  return boost::math::quantile(
      boost::math::complement(boost::math::students_t(double(df)), two_sided / 2));
}

// The repeated interval of a paired look at nominal two-sided `level`.
LogInterval RepeatedInterval(const ShiftTest& t, double level) {
  const double half =
      t.sigma > 0 ? TQuantile(level, t.sigma_df) * t.sigma / std::sqrt(double(t.n_base)) : 0;
  return {t.shift - half, t.shift + half};
}

std::string RatioText(const LogInterval& i) {
  return "[" + FixedText(std::exp(i.low), "%.3f") + ", " + FixedText(std::exp(i.high), "%.3f") +
         "]";
}

const ShiftTest* LookAt(const SequentialMember& m, size_t round) {
  for (size_t i = 0; i < m.rounds.size(); ++i)
    if (m.rounds[i] == round && m.looks[i].design == Design::Paired) return &m.looks[i];
  return nullptr;
}

}  // namespace

double PocockSpending(double t, double alpha) {
  return alpha * std::log(1 + (std::exp(1.0) - 1) * std::clamp(t, 0.0, 1.0));
}

const std::vector<double>& NominalLevels(const SequentialPlan& plan, double alpha) {
  if (plan.first_look < 3 || plan.max_rounds < plan.first_look)
    throw std::invalid_argument("a sequential plan needs a first look at 3 rounds or more, and "
                                "at most the plan's " + std::to_string(plan.max_rounds) +
                                " rounds (first look at " + std::to_string(plan.first_look) + ")");
  if (plan.max_rounds > kMaxSequentialRounds)
    throw std::invalid_argument("a sequential plan of " + std::to_string(plan.max_rounds) +
                                " rounds: at most " + std::to_string(kMaxSequentialRounds));
  static std::mutex mutex;
  static std::map<std::tuple<size_t, size_t, double>, std::vector<double>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(plan.max_rounds, plan.first_look, alpha);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, ComputeLevels(plan.max_rounds, plan.first_look, alpha)).first;
  return it->second;
}

bool Conclusive(Verdict v) {
  return v == Verdict::Better || v == Verdict::Worse || v == Verdict::NoChange;
}

bool StopsOutOfReach(size_t round, size_t out_of_reach_looks_in_a_row,
                     const SequentialPlan& plan) {
  return out_of_reach_looks_in_a_row >= kOutOfReachLooks && 2 * round >= plan.max_rounds &&
         round < plan.max_rounds;
}

std::optional<size_t> RoundsToDecide(const ShiftTest& last, const SequentialPlan& plan,
                                     const VerdictRule& rule, size_t tests) {
  if (!(last.sigma > 0)) return std::nullopt;
  const Band band = Band::FromNoise(rule.noise);
  const double edge = last.shift < 0 ? band.lower : band.upper;
  const double distance = std::abs(std::abs(last.shift) - edge);
  if (distance <= 0) return std::nullopt;
  const bool outside = std::abs(last.shift) > edge;
  const double level = outside ? NominalLevels(plan, rule.alpha / double(std::max<size_t>(1, tests))).back()
                               : NominalLevels(plan, 0.10).back();
  const double z = UpperQuantile(level / 2);
  const double n = std::ceil(std::pow(z * last.sigma / distance, 2));
  return size_t(std::min(n, 1e9));
}

// Out of reach: at the test's spread, no shift in its plain 90% interval (its ends, and no
// change where it holds 0) would be decided within the plan's rounds: a conditional-power
// futility rule, optimistic by 1.645 standard errors. The point estimate alone stopped tests
// whose shift was merely not yet clear (power 0.970 -> 0.885 at a plan of 72 rounds in the
// calibration); the repeated interval's ends are reachable by construction, so never stopped.
bool OutOfReach(const ShiftTest& last, const SequentialPlan& plan, const VerdictRule& rule,
                size_t tests) {
  if (!(last.sigma > 0) || !last.ci90) return false;
  std::vector<double> shifts{last.ci90->low, last.ci90->high};
  if (last.ci90->low <= 0 && last.ci90->high >= 0) shifts.push_back(0);
  for (const double shift : shifts) {
    ShiftTest t = last;
    t.shift = shift;
    const auto need = RoundsToDecide(t, plan, rule, tests);
    if (need && *need <= plan.max_rounds) return false;
  }
  return true;
}

namespace {

// The rounds at which the family is looked at: every round of a member within the plan.
std::vector<size_t> LookRounds(const std::vector<SequentialMember>& family,
                               const SequentialPlan& plan) {
  std::vector<size_t> rounds;
  for (const SequentialMember& member : family)
    for (size_t r : member.rounds)
      if (r >= plan.first_look && r <= plan.max_rounds) rounds.push_back(r);
  std::sort(rounds.begin(), rounds.end());
  rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
  return rounds;
}

// The rejections at round `r`, Holm's step-down: each one raises the others' shares of
// alpha, so the open tests are looked at again until none crosses.
void RejectAt(size_t r, const std::vector<SequentialMember>& family, const SequentialPlan& plan,
              const VerdictRule& rule, std::vector<SequentialJudgement>& out,
              std::vector<bool>& rejected) {
  const size_t look = r - plan.first_look;
  for (bool again = true; again;) {
    again = false;
    const size_t open = size_t(std::count(rejected.begin(), rejected.end(), false));
    if (open == 0) break;
    const double level = NominalLevels(plan, rule.alpha / double(open))[look];
    for (size_t i = 0; i < family.size(); ++i) {
      if (out[i].decided_at) continue;
      const ShiftTest* t = LookAt(family[i], r);
      if (!t || !(t->p < level) || t->direction == 0) continue;
      const bool up = t->direction > 0;
      out[i].verdict =
          up == (family[i].direction == Better::Higher) ? Verdict::Better : Verdict::Worse;
      out[i].decided_at = r;
      out[i].p = t->p;
      out[i].level = level;
      rejected[i] = true;
      again = true;
      break;
    }
  }
}

// No change at round `r` for each open test whose repeated 90% interval lies in the band.
void AcceptNoChangeAt(size_t r, const std::vector<SequentialMember>& family,
                      const SequentialPlan& plan, const VerdictRule& rule,
                      std::vector<SequentialJudgement>& out) {
  if (r < kMinEquivalenceRuns) return;
  const size_t look = r - plan.first_look;
  const Band band = Band::FromNoise(rule.noise);
  const double level = NominalLevels(plan, 0.10)[look];
  for (size_t i = 0; i < family.size(); ++i) {
    if (out[i].decided_at) continue;
    const ShiftTest* t = LookAt(family[i], r);
    if (!t) continue;
    const LogInterval ci = RepeatedInterval(*t, level);
    if (ci.low >= -band.lower && ci.high <= band.upper) {
      out[i].verdict = Verdict::NoChange;
      out[i].decided_at = r;
      out[i].p = t->p;
      out[i].level = level;
    }
  }
}

// The member's last paired look within the plan and its round; nullptr when none.
const ShiftTest* LastLook(const SequentialMember& member, const SequentialPlan& plan,
                          size_t* round) {
  const ShiftTest* last = nullptr;
  *round = 0;
  for (size_t k = 0; k < member.rounds.size(); ++k)
    if (member.rounds[k] >= plan.first_look && member.rounds[k] <= plan.max_rounds &&
        member.looks[k].design == Design::Paired && member.rounds[k] >= *round) {
      last = &member.looks[k];
      *round = member.rounds[k];
    }
  return last;
}

// An open test after its last look (at `last_round`): its p against the level it would need
// with `open` tests left, about how many rounds would decide it, and whether none could.
void DescribeOpen(SequentialJudgement& j, const ShiftTest& last, size_t last_round,
                  const SequentialPlan& plan, const VerdictRule& rule, size_t open) {
  j.p = last.p;
  j.level = NominalLevels(
      plan, rule.alpha / double(std::max<size_t>(1, open)))[last_round - plan.first_look];
  j.detail = "sequential: open after " + std::to_string(last_round) + " of " +
             std::to_string(plan.max_rounds) + " rounds, repeated 95% interval " +
             RatioText(*j.rci95);
  const auto need = RoundsToDecide(last, plan, rule, std::max<size_t>(1, open));
  // Past a million rounds the estimate only says the shift sits at the band's edge.
  if (need && *need > 1000000)
    j.to_decide =
        "no practical number of rounds would decide it (the shift sits at the band's "
        "edge)";
  else if (need && *need > last_round)
    j.to_decide = "about " + std::to_string(*need - last_round) + " more rounds would decide it" +
                  (*need > plan.max_rounds ? " (beyond the budget)" : "");
  if (!j.to_decide.empty()) j.detail += "; " + j.to_decide;
  j.out_of_reach = OutOfReach(last, plan, rule, std::max<size_t>(1, open));
}

}  // namespace

std::vector<SequentialJudgement> JudgeSequentialFamily(const std::vector<SequentialMember>& family,
                                                       const SequentialPlan& plan,
                                                       const VerdictRule& rule) {
  const size_t m = family.size();
  std::vector<SequentialJudgement> out(m);
  std::vector<bool> rejected(m, false);
  for (const size_t r : LookRounds(family, plan)) {
    // Rejections first: a test decided at this look is not also judged for no change.
    RejectAt(r, family, plan, rule, out, rejected);
    AcceptNoChangeAt(r, family, plan, rule, out);
  }
  const std::vector<double>& l95 = NominalLevels(plan, 0.05);
  const size_t open = size_t(std::count(rejected.begin(), rejected.end(), false));
  for (size_t i = 0; i < m; ++i) {
    size_t last_round = 0;
    const ShiftTest* last = LastLook(family[i], plan, &last_round);
    SequentialJudgement& j = out[i];
    if (!last) {
      j.verdict = Verdict::TooFewRuns;
      j.detail = "no look yet: the first is after " + std::to_string(plan.first_look) +
                 " rounds with one run a side";
      continue;
    }
    j.rci95 = RepeatedInterval(*last, l95[last_round - plan.first_look]);
    if (j.decided_at) {
      j.detail = j.verdict == Verdict::NoChange
                     ? "sequential: the repeated 90% interval fell inside +-" +
                           FixedText(rule.noise * 100, "%g") + "% at round " +
                           std::to_string(j.decided_at)
                     : "sequential: crossed the boundary at round " +
                           std::to_string(j.decided_at) + " (p " + FixedText(j.p, "%.2g") +
                           " below its nominal " + FixedText(j.level, "%.2g") + ")";
      continue;
    }
    DescribeOpen(j, *last, last_round, plan, rule, open);
  }
  return out;
}

}  // namespace storbed

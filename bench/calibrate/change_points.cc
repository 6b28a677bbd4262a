// storbed-calibrate change-points: the change-point scan of `storbed history`
// (judging/change_scan) on simulated nightly series with a known truth. Each night is the
// median of its runs (lognormal, CV as given), its level moved by a lognormal night factor
// (drift). Prints how often a step is found within one night of where it is, how often an
// unchanged series gets a change anyway, and what short series, a level that comes back, a
// recent change and a bad night do. docs/history.md shows the table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "calibration.h"
#include "judging/change_scan.h"
#include "judging/seeded_draws.h"
#include "judging/simulated_levels_for_test.h"

namespace storbed {
namespace calibrate_change_points {  // named, not anonymous: a unity build joins files

using testing_support::FoundNear;
using testing_support::Levels;
using testing_support::LogSd;
using testing_support::Truth;

// Any change more than a night away from every true step.
bool Spurious(const std::vector<LevelChange>& changes, const Truth& t) {
  return std::any_of(changes.begin(), changes.end(), [&](const LevelChange& c) {
    return std::none_of(t.steps.begin(), t.steps.end(), [&](const auto& s) {
      return c.index + 1 >= s.first && c.index <= s.first + 1;
    });
  });
}

struct Rates {
  double found = 0, spurious = 0;  // shares of series
};

// Over `reps` series of `t`: found (every true step within a night; for no step, any
// change), and spurious (a change away from every true step).
Rates Measure(const Truth& t, size_t reps, SeededDraws& d) {
  size_t found = 0, spurious = 0;
  for (size_t i = 0; i < reps; ++i) {
    const auto changes = FindLevelChanges(Levels(t, d));
    const bool all = t.steps.empty()
                         ? !changes.empty()
                         : std::all_of(t.steps.begin(), t.steps.end(),
                                       [&](const auto& s) { return FoundNear(changes, s.first); });
    found += all;
    spurious += Spurious(changes, t);
  }
  return {double(found) / double(reps), double(spurious) / double(reps)};
}

std::string Share(double p, size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f (+-%.3f)", p, std::sqrt(p * (1 - p) / double(n)));
  return buf;
}

void Steps(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "30 nights, the level down by the step from night 16, no drift: found within a night; "
         "a change elsewhere\n  step  cv    runs  found            elsewhere\n";
  for (const double step : {0.05, 0.10, 0.20})
    for (const double cv : {0.05, 0.15})
      for (const size_t runs : {1u, 3u}) {
        const Rates r = Measure({.runs = runs, .cv = cv, .steps = {{15, 1 - step}}}, reps, d);
        char line[64];
        std::snprintf(line, sizeof line, "  %-5.0f %-5.0f %-5zu ", step * 100, cv * 100, runs);
        out << line << Share(r.found, reps) << "  " << Share(r.spurious, reps) << "\n";
      }
}

void Unchanged(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "30 unchanged nights, run CV 5%, night-to-night drift: a false change point\n"
         "  drift runs  false\n";
  for (const double drift : {0.0, 0.03, 0.05})
    for (const size_t runs : {1u, 3u, 5u}) {
      const Rates r = Measure({.runs = runs, .drift = drift, .steps = {}}, reps, d);
      char line[48];
      std::snprintf(line, sizeof line, "  %-5.0f %-5zu ", drift * 100, runs);
      out << line << Share(r.found, reps) << "\n";
    }
}

void Lengths(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "by length, one run a night, run CV 5%, the step in the middle: found within a night; "
         "unchanged with 3% drift and 3 runs: false\n  nights  10% step         doubling         "
         "false\n";
  for (const size_t nights : {10u, 30u, 60u}) {
    const Rates ten = Measure({.nights = nights, .steps = {{nights / 2, 0.9}}}, reps, d);
    const Rates two = Measure({.nights = nights, .steps = {{nights / 2, 2.0}}}, reps, d);
    const Rates none = Measure({.nights = nights, .runs = 3, .drift = 0.03, .steps = {}}, reps, d);
    char line[32];
    std::snprintf(line, sizeof line, "  %-7zu ", nights);
    out << line << Share(ten.found, reps) << "  " << Share(two.found, reps) << "  "
        << Share(none.found, reps) << "\n";
  }
}

void Shapes(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "other shapes, one run a night, run CV 5%: found (every step within a night); a change "
         "elsewhere\n";
  const struct {
    const char* name;
    Truth truth;
  } shapes[] = {
      {"30 nights, doubling at 16", {.steps = {{15, 2.0}}}},
      {"30 nights, 10% up on nights 11-20 (A B A)", {.steps = {{10, 1.1}, {20, 1.0}}}},
      {"30 nights, 20% up on nights 11-20 (A B A)", {.steps = {{10, 1.2}, {20, 1.0}}}},
      {"15 nights, 20% up on nights 6-10 (A B A)", {.nights = 15, .steps = {{5, 1.2}, {10, 1.0}}}},
      {"18 nights, 20% up on nights 7-12 (A B A)", {.nights = 18, .steps = {{6, 1.2}, {12, 1.0}}}},
      {"30 nights, doubling on the last 2", {.steps = {{28, 2.0}}}},
      {"30 nights, doubling on the last 3", {.steps = {{27, 2.0}}}},
      {"30 nights, 20% down on the last 4", {.steps = {{26, 0.8}}}},
      {"30 nights, 20% down on the last 6", {.steps = {{24, 0.8}}}},
      {"30 nights, 10% down at 16, a bad night (half)", {.steps = {{15, 0.9}}, .bad_night = true}},
      {"30 nights, unchanged, a bad night (half)", {.drift = 0.03, .steps = {}, .bad_night = true}},
  };
  for (const auto& s : shapes) {
    const Rates r = Measure(s.truth, reps, d);
    char line[64];
    std::snprintf(line, sizeof line, "  %-48s ", s.name);
    out << line << Share(r.found, reps) << "  " << Share(r.spurious, reps) << "\n";
  }
  out << "10 nights, one run a night, run CV 5%, a doubling: found at its night\n";
  for (size_t at = 2; at <= 8; ++at) {
    const Truth t{.nights = 10, .steps = {{at, 2.0}}};
    size_t exact = 0;
    const size_t n = reps / 4;
    for (size_t i = 0; i < n; ++i) {
      const auto c = FindLevelChanges(Levels(t, d));
      exact += c.size() == 1 && c[0].index == at;
    }
    char line[64];
    std::snprintf(line, sizeof line, "  from night %zu (%zu before, %zu after): ", at + 1, at,
                  10 - at);
    out << line << Share(double(exact) / double(n), n) << "\n";
  }
}

void Run(const CalibrationArgs& args, std::ostream& out) {
  const size_t reps = args.reps ? args.reps : 2000;
  const ChangeScanOptions o;
  char head[160];
  std::snprintf(head, sizeof head,
                "defaults: p <= %g, %zu permutations (exact up to %zu nights), at least %zu "
                "nights a piece, minimum change %g%%; %zu series a row\n",
                o.max_p, o.permutations, kExactScanNights, o.min_nights, o.min_change * 100, reps);
  out << head;
  SeededDraws d(args.seed);
  Steps(reps, d, out);
  Unchanged(reps, d, out);
  Lengths(reps, d, out);
  Shapes(reps, d, out);
}

const bool registered = RegisterCalibration(
    {"change-points",
     "storbed history's change points on simulated nights (run noise, night drift, steps): "
     "found within a night, false change points, short series, A B A, a bad night",
     Run});

}  // namespace calibrate_change_points
}  // namespace storbed

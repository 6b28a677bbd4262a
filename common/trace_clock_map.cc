#include "trace_clock_map.h"

#include <cmath>
#include <set>

namespace storbed {
namespace {

// The text trace prints a marker's stamp cut to the microsecond: its middle is 500 ns on.
constexpr uint64_t kTextHalfUs = 500;
// A CPU's clock running further than this from CLOCK_MONOTONIC's rate is no clock to map.
constexpr long double kMaxRateError = 0.01;

// The narrowest bracket among `samples` of `cpu`, or nullptr.
const ClockSyncSample* Narrowest(const std::vector<ClockSyncSample>& samples, int cpu) {
  const ClockSyncSample* best = nullptr;
  for (const ClockSyncSample& s : samples)
    if (s.cpu == cpu && s.mono_after_ns >= s.mono_before_ns &&
        (!best || s.mono_after_ns - s.mono_before_ns < best->mono_after_ns - best->mono_before_ns))
      best = &s;
  return best;
}

uint64_t HalfWidth(const ClockSyncSample& s) { return (s.mono_after_ns - s.mono_before_ns) / 2; }
uint64_t Middle(const ClockSyncSample& s) { return s.mono_before_ns + HalfWidth(s); }

}  // namespace

TraceClockMap TraceClockMap::Fit(const std::vector<ClockSyncSample>& before,
                                 const std::vector<ClockSyncSample>& after) {
  TraceClockMap m;
  std::set<int> cpus;
  for (const auto* group : {&before, &after})
    for (const ClockSyncSample& s : *group) cpus.insert(s.cpu);
  for (const int cpu : cpus) {
    const ClockSyncSample* a = Narrowest(before, cpu);
    const ClockSyncSample* b = Narrowest(after, cpu);
    const std::string name = "the trace clock of CPU " + std::to_string(cpu);
    if (!a || !b || b->trace_ns <= a->trace_ns) {
      if (m.problem_.empty())
        m.problem_ = name + " has no marker " + (a ? "after" : "before") + " the events";
      continue;
    }
    Line line;
    line.mono0 = Middle(*a);
    line.trace0 = a->trace_ns + kTextHalfUs;
    line.rate = (static_cast<long double>(Middle(*b)) - line.mono0) /
                static_cast<long double>(b->trace_ns - a->trace_ns);
    if (std::fabs(line.rate - 1) > kMaxRateError) {
      if (m.problem_.empty())
        m.problem_ = name + " ran at " + std::to_string(double(line.rate)) +
                     " of CLOCK_MONOTONIC's rate between its markers";
      continue;
    }
    m.lines_[cpu] = line;
    m.uncertainty_ns_ =
        std::max(m.uncertainty_ns_, std::max(HalfWidth(*a), HalfWidth(*b)) + kTextHalfUs);
  }
  return m;
}

std::optional<uint64_t> TraceClockMap::ToMono(int cpu, uint64_t trace_ns) const {
  const auto it = lines_.find(cpu);
  if (it == lines_.end()) return std::nullopt;
  const Line& l = it->second;
  const long double mono =
      l.mono0 + (static_cast<long double>(trace_ns) - static_cast<long double>(l.trace0)) * l.rate;
  if (mono < 0) return std::nullopt;
  return static_cast<uint64_t>(std::llroundl(mono));
}

}  // namespace storbed

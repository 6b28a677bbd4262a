// A trace clock put on CLOCK_MONOTONIC, CPU by CPU. The "mono" trace clock reads the kernel's
// clocksource at every event; where that is an HPET or ACPI PM timer (a TCG guest's), each
// read is an exit into the hypervisor, and tracing's cost is mostly that. The "local" clock
// (sched_clock: the TSC, scaled) costs nothing to read but is each CPU's own. So the session
// writes markers on every CPU, each between two CLOCK_MONOTONIC reads, before the events and
// after them; each CPU's clock is mapped onto CLOCK_MONOTONIC by the line through its
// narrowest marker of each group.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace storbed {

// One marker: CLOCK_MONOTONIC just before and just after it was written, and the trace
// clock's stamp the trace printed for it, on the CPU it was written on.
struct ClockSyncSample {
  int cpu = -1;
  uint64_t mono_before_ns = 0, mono_after_ns = 0;
  uint64_t trace_ns = 0;
};

class TraceClockMap {
 public:
  // Fits each CPU seen in both `before` (markers written before the events) and `after`.
  static TraceClockMap Fit(const std::vector<ClockSyncSample>& before,
                           const std::vector<ClockSyncSample>& after);

  // `trace_ns` of an event on `cpu` on CLOCK_MONOTONIC; nullopt for a CPU without a fit.
  std::optional<uint64_t> ToMono(int cpu, uint64_t trace_ns) const;
  // How far a mapped time may be from the truth, over every CPU: the larger half-width of
  // its two markers' CLOCK_MONOTONIC brackets, plus the text trace's microsecond.
  uint64_t uncertainty_ns() const { return uncertainty_ns_; }
  // Why a CPU has no fit or a fit that cannot be right ("" when every CPU seen is fitted):
  // a marker group without it, or a rate more than 1% from CLOCK_MONOTONIC's.
  const std::string& problem() const { return problem_; }
  bool Has(int cpu) const { return lines_.count(cpu) > 0; }

 private:
  struct Line {
    uint64_t mono0 = 0, trace0 = 0;
    long double rate = 1;  // CLOCK_MONOTONIC ns per trace clock ns
  };
  std::map<int, Line> lines_;
  uint64_t uncertainty_ns_ = 0;
  std::string problem_;
};

}  // namespace storbed

#include "reports/io_trace_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/number_text.h"

namespace storbed {
namespace {

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string SegmentLabel(const SegmentFigures& s) { return s.name + " (" + s.from + " -> " + s.to + ")"; }

// The label column is as wide as the longest label, so the figures line up whichever segments ran.
void Segments(std::ostringstream& out, const IoTraceFigures& f, const std::string& indent) {
  size_t width = 34;
  for (const SegmentFigures& s : f.segments) width = std::max(width, SegmentLabel(s).size() + 1);
  out << indent << Pad("segment", width) << PadLeft("p50 us", 9) << PadLeft("p90 us", 9)
      << PadLeft("p99 us", 9) << PadLeft("max us", 10) << PadLeft("mean us", 9) << "  clocks\n";
  for (const SegmentFigures& s : f.segments)
    out << indent << Pad(SegmentLabel(s), width) << PadLeft(TraceFigure(s.p50_us), 9)
        << PadLeft(TraceFigure(s.p90_us), 9) << PadLeft(TraceFigure(s.p99_us), 9)
        << PadLeft(TraceFigure(s.max_us), 10) << PadLeft(TraceFigure(s.mean_us), 9) << "  "
        << s.clocks << "\n";
}

void WaterfallText(std::ostringstream& out, const Waterfall& w) {
  out << "  waterfall, " << w.which << ": " << TraceFigure(w.latency_us) << " us\n";
  constexpr int kWidth = 40;
  for (const WaterfallStep& s : w.steps) {
    if (w.latency_us <= 0) break;
    const int from = int(kWidth * s.start_us / w.latency_us + 0.5);
    const int len = std::max(0, int(kWidth * (s.start_us + s.us) / w.latency_us + 0.5) - from);
    out << "    " << Pad(s.segment, 32) << "|" << std::string(std::max(0, from), ' ')
        << std::string(size_t(len), '#') << std::string(std::max(0, kWidth - from - len), ' ')
        << "| " << PadLeft(TraceFigure(s.us), 8) << " us ("
        << TraceFigure(100 * s.us / w.latency_us, "%.0f") << "%)\n";
  }
}

}  // namespace

std::string RenderIoTrace(const RunRecord& run, const RunRecord* twin) {
  if (!run.io_trace) return "";
  const IoTraceFigures& f = *run.io_trace;
  std::ostringstream out;
  out << "per IO (trace), " << f.path << ": " << f.joined << " of " << f.ios
      << " IOs joined across every traced layer (" << TraceFigure(100 * f.joined_share, "%.2f")
      << "%); resolution " << TraceFigure(f.resolution_ns / 1000.0, "%.0f") << " us\n";
  if (!f.block_clock.empty()) out << "  block events: " << f.block_clock << "\n";
  if (f.clock_method != "one clock (bare metal)")
    out << "  clock: the guest's put on the host's by " << f.clock_method << ", offset "
        << TraceFigure(f.clock_offset_ns / 1e6, "%.3f") << " ms +- "
        << TraceFigure(f.clock_uncertainty_ns / 1000.0, "%.1f") << " us"
        << (f.clock_drift ? " (the guest clock drifts: cross-clock segments are off)" : "") << "\n";
  const uint64_t missing = f.agent_missing + f.qemu_missing + f.host_missing;
  const uint64_t ambiguous = f.agent_ambiguous + f.qemu_ambiguous + f.host_ambiguous;
  if (missing || ambiguous)
    out << "  left out: " << missing << " not seen at some layer (block layer " << f.agent_missing
        << ", QEMU " << f.qemu_missing << ", host device " << f.host_missing << "), " << ambiguous
        << " ambiguous (an event two IOs could own)\n";
  for (const NotTraced& n : f.not_traced) out << "  not traced: " << n.layer << ": " << n.reason << "\n";
  for (const std::string& w : f.warnings) out << "  CUT SHORT or incomplete: " << w << "\n";
  Segments(out, f, "  ");
  for (const Waterfall& w : f.waterfalls) WaterfallText(out, w);
  out << "  depth from the IOs' own intervals vs the counters:\n";
  for (const DepthFromIos& d : f.depth) {
    out << "    " << Pad(d.layer, 26) << PadLeft(TraceFigure(d.depth, "%.2f"), 7);
    if (d.counter_over_phase)
      out << " vs " << PadLeft(TraceFigure(*d.counter_over_phase, "%.2f"), 7)
          << (d.diff_pct ? " (" + TraceFigure(*d.diff_pct, "%+.1f") + "%)" : std::string());
    else
      out << "    (no counter)";
    out << "  " << d.interval;
    if (!d.window.empty())
      out << "; counter " << TraceFigure(*d.counter, "%.2f") << " over " << d.window;
    if (d.ios_share < 0.999) out << "; " << TraceFigure(100 * d.ios_share) << "% of IOs seen here";
    if (d.diff_pct && std::abs(*d.diff_pct) > 5) out << "; " << d.note;
    out << "\n";
  }
  out << "  of the application's depth (in-flight time): "
      << TraceFigure(100 * f.share_before_issue) << "% before the block layer issued the request, "
      << TraceFigure(100 * (1 - f.share_before_issue - f.share_after_complete))
      << "% issued (the device and below), " << TraceFigure(100 * f.share_after_complete)
      << "% after it completed\n";
  if (f.configured_backend_us)
    out << "  null-co answers after " << TraceFigure(*f.configured_backend_us)
        << " us (configured); "
        << "the segment that holds it measured min " << TraceFigure(f.backend_min_us) << ", p50 "
        << TraceFigure(f.backend_p50_us) << " us: its timer fired "
        << TraceFigure(f.backend_min_us - *f.configured_backend_us) << " .. "
        << TraceFigure(f.backend_p50_us - *f.configured_backend_us) << " us late"
        << (f.qemu_timer_slack_us
                ? " (QEMU's threads' timer slack " + TraceFigure(*f.qemu_timer_slack_us) +
                      " us; the rest is QEMU's thread waiting to run)"
                : std::string())
        << "\n";
  if (f.queued_before_submit_us > 0)
    out << "  an IO counted in flight " << TraceFigure(f.queued_before_submit_us)
        << " us on average before its own submit call (a refill's later IOs, counted from its "
           "first call as fio counts them): in L0's depth, not in the latency\n";
  out << "  joined IOs' p50 " << TraceFigure(f.joined_p50_us)
      << " us vs the engine's histogram p50 " << TraceFigure(f.histogram_p50_us) << " us ("
      << TraceFigure(f.p50_diff_pct, "%+.1f") << "%)\n";
  if (twin && twin->io_trace) {
    out << "  bare-metal twin " << twin->run_id << " (" << twin->io_trace->path << "), "
        << twin->io_trace->joined << " of " << twin->io_trace->ios << " joined:\n";
    Segments(out, *twin->io_trace, "    ");
  }
  if (!f.file.empty())
    out << "  joined IOs: " << f.file << " (" << f.file_ios << " IOs, at most " << f.file_cap
        << " kept)\n";
  if (!f.overhead.empty()) out << "  " << f.overhead << "\n";
  return out.str();
}

}  // namespace storbed

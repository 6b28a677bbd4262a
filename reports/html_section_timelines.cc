// The timelines section: per run, what was in flight, IOPS, request size and host device
// depth over the IO phase, on one time axis.
#include "reports/cells.h"
#include "reports/compare_metrics.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/svg_chart.h"
#include "reports/timelines.h"

namespace storbed {
namespace {

bool StartsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool EndsWith(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// A panel: its axis, the compare metric whose direction it shows ("" for none), and which
// of a run's timelines it draws (guest timelines come from the agent, host ones from
// storbed's samplers; on bare metal the agent runs on the host).
struct PanelRow {
  const char* title;
  const char* metric;
  AxisSpec y;
  bool (*wants)(bool guest_side, const std::string& name, bool bare_metal);
};

const std::vector<PanelRow>& PanelRows() {
  static const std::vector<PanelRow> kRows = {
      {"In flight",
       "",
       {"in flight", "requests", false, 0.0, {}},
       [](bool guest, const std::string& n, bool) {
         return guest ? EndsWith(n, ".inflight")
                      : (StartsWith(n, "virtqueue.") && EndsWith(n, ".inuse")) ||
                            (StartsWith(n, "qemu.") && EndsWith(n, ".depth"));
       }},
      {"IOPS",
       "iops",
       {"IOPS", "IO/s", false, 0.0, {}},
       [](bool guest, const std::string& n, bool) {
         return EndsWith(n, ".iops") && (guest || StartsWith(n, "qemu."));
       }},
      {"Request size",
       "req_kib",
       {"request size", "KiB", false, 0.0, {}},
       [](bool guest, const std::string& n, bool) { return guest && EndsWith(n, ".request_kib"); }},
      // On bare metal the agent's own diskstats depth is the host device's.
      {"Host device depth",
       "",
       {"depth", "requests", false, 0.0, {}},
       [](bool guest, const std::string& n, bool bare_metal) {
         return guest ? bare_metal && EndsWith(n, ".depth")
                      : StartsWith(n, "host.") && EndsWith(n, ".depth");
       }},
  };
  return kRows;
}

std::string RunChart(const RunRecord& r, const RunTimelines& t) {
  const bool bare_metal = r.target == "bare-metal";
  LineChart chart;
  chart.kind = "timelines";
  chart.title = r.run_id + " (" + r.target + ", job " + r.job.name + "): the IO phase";
  chart.x = {"time since the IO phase began", "s", false, 0.0, {}};
  for (const PanelRow& row : PanelRows()) {
    Panel panel{row.title, BetterPhrase(DirectionOf(row.metric)), row.y, {}, "not sampled"};
    for (bool guest_side : {true, false})
      for (const Timeline& tl : guest_side ? t.guest : t.host)
        if (row.wants(guest_side, tl.name, bare_metal))
          panel.series.push_back({tl.name, tl.t_s, tl.value});
    chart.panels.push_back(panel);
  }
  return HtmlFigure(RenderLineChart(chart), "");
}

}  // namespace

std::string TimelinesSectionHtml(const ReportInput& input) {
  std::string out = HtmlParagraph(
      "Sampled over each run's IO phase, on the host's clock (guest samples shifted by the "
      "measured clock offset): the guest's in-flight count (10 ms) with QEMU's and the "
      "virtqueue's depth, IOPS, the average request size per interval (100 ms), and the host "
      "device's depth. Bare-metal runs have the agent's samples of the loop device only.",
      "note");
  size_t charts = 0;
  for (const RunRecord& r : ReportedRuns(input.records)) {
    const RunTimelines t = ReadRunTimelines(input.dir, r);
    if (t.path.empty()) continue;
    if (!t.error.empty()) {
      out += HtmlParagraph(r.run_id + ": " + t.error, "note");
      continue;
    }
    out += RunChart(r, t);
    ++charts;
  }
  if (charts == 0) out += HtmlParagraph("No run has timelines.", "note");
  return out;
}

}  // namespace storbed

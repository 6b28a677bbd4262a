#include "cli/history_by_host.h"

#include <algorithm>

#include "analysis/run_stats.h"
#include "history/lab_series.h"
#include "reports/compare_metrics.h"
#include "reports/number_text.h"

namespace storbed {
namespace {

nlohmann::json HostJson(const LabCell& cell, const HostSeries& h) {
  nlohmann::json medians = nlohmann::json::array();
  for (const std::vector<double>& values : ValuesByNight(h, cell.nights.size()))
    medians.push_back(values.empty() ? nlohmann::json() : nlohmann::json(Median(values)));
  nlohmann::json changes = nlohmann::json::array();
  for (const HistoryChange& c : h.series.changes) {
    const size_t night = h.axis[c.night];
    changes.push_back({{"night", night + 1},
                       {"date", cell.nights[night]},
                       {"session", h.series.nights[c.night].session},
                       {"before", c.before},
                       {"after", c.after},
                       {"ratio", c.ratio},
                       {"p", c.p}});
  }
  return {{"host", h.host},
          {"fingerprint_class", h.fingerprint_class},
          {"medians", medians},
          {"change_points", changes}};
}

nlohmann::json ChangeJson(const LabCell& cell, const LabChange& c) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const HostChange& h : c.changes)
    hosts.push_back({{"host", h.host}, {"night", h.night + 1}, {"ratio", h.ratio}});
  nlohmann::json out = {{"scope", ToString(c.scope)},
                        {"night", c.night + 1},
                        {"date", cell.nights[c.night]},
                        {"hosts", hosts},
                        {"text", DescribeLabChange(cell, c)}};
  if (c.joint) out["joint_p"] = c.joint_p;
  return out;
}

}  // namespace

nlohmann::json LabSeriesJson(const std::string& scenario, const std::string& metric,
                             const std::vector<LabCell>& cells) {
  nlohmann::json out = {{"scenario", scenario},
                        {"metric", metric},
                        {"better", ToString(DirectionOf(metric))},
                        {"by", "host"},
                        {"cells", nlohmann::json::array()}};
  for (const LabCell& cell : cells) {
    nlohmann::json c = {{"cell", cell.cell},
                        {"nights", cell.nights},
                        {"hosts", nlohmann::json::array()},
                        {"changes", nlohmann::json::array()}};
    for (const HostSeries& h : cell.hosts) c["hosts"].push_back(HostJson(cell, h));
    for (const LabChange& change : cell.changes) c["changes"].push_back(ChangeJson(cell, change));
    out["cells"].push_back(c);
  }
  return out;
}

std::string RenderLabSeries(const nlohmann::json& series) {
  std::string out = "scenario " + series["scenario"].get<std::string>() + ", metric " +
                    series["metric"].get<std::string>() +
                    " (better: " + series["better"].get<std::string>() + "), by host\n";
  for (const auto& c : series["cells"]) {
    const auto& hosts = c["hosts"];
    size_t width = 10;
    for (const auto& h : hosts) width = std::max(width, h["host"].get<std::string>().size() + 2);
    const auto column = [&](std::string text) {
      return std::string(width > text.size() ? width - text.size() : 1, ' ') + text;
    };
    out += "\n" + c["cell"].get<std::string>() + "\n  night  date      ";
    for (const auto& h : hosts) out += column(h["host"]);
    out += "\n";
    for (size_t n = 0; n < c["nights"].size(); ++n) {
      std::string line = "  " + std::to_string(n + 1);
      line += std::string(9 - std::min<size_t>(line.size(), 8), ' ') +
              c["nights"][n].get<std::string>();
      for (const auto& h : hosts) {
        const auto& m = h["medians"][n];
        line += column(m.is_null() ? "-" : FormatNumber(m.get<double>()));
      }
      out += line + "\n";
    }
    if (c["changes"].empty()) out += "  no change point on any host\n";
    for (const auto& change : c["changes"]) out += "  " + change["text"].get<std::string>() + "\n";
  }
  return out;
}

}  // namespace storbed

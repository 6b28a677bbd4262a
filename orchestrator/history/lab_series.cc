#include "history/lab_series.h"

#include <algorithm>
#include <map>
#include <set>

#include "history/nightly_series.h"
#include "reports/number_text.h"

namespace storbed {

std::vector<LabCell> LabSeries(HistoryStore& store, const std::vector<HistorySession>& sessions,
                               const std::string& metric, const std::string& cell_pattern,
                               const ChangePointOptions& rule, const ChangeGrouping& grouping) {
  std::map<std::string, std::vector<HistorySession>> by_host;
  std::set<std::string> dates;
  for (const HistorySession& s : sessions) {
    by_host[s.host].push_back(s);
    dates.insert(NightOf(s.started_at));
  }
  const std::vector<std::string> axis(dates.begin(), dates.end());
  const auto axis_of = [&](const std::string& started_at) -> size_t {
    return std::lower_bound(axis.begin(), axis.end(), NightOf(started_at)) - axis.begin();
  };
  std::map<std::string, LabCell> cells;
  for (const auto& [host, nights] : by_host) {
    // Each host's change points come from its own nights: a night another host missed or
    // ran twice does not move them.
    for (HistorySeries& series : NightlySeries(store, nights, metric, cell_pattern, rule)) {
      LabCell& cell = cells[series.cell];
      cell.cell = series.cell;
      cell.metric = metric;
      HostSeries h{host, nights.back().fingerprint_class, std::move(series), {}};
      for (const HistoryNight& n : h.series.nights) h.axis.push_back(axis_of(n.started_at));
      cell.hosts.push_back(std::move(h));
    }
  }
  std::vector<LabCell> out;
  for (auto& [name, cell] : cells) {
    cell.nights = axis;
    std::vector<std::string> hosts;
    std::vector<HostChange> changes;
    std::vector<std::vector<std::vector<double>>> nights;  // [host][night on the axis]
    for (const HostSeries& h : cell.hosts) {
      hosts.push_back(h.host);
      for (const HistoryChange& c : h.series.changes)
        changes.push_back({h.host, h.axis[c.night], c.ratio});
      nights.push_back(ValuesByNight(h, axis.size()));
    }
    cell.changes =
        ClassifyChanges(hosts, changes, grouping, SuiteSteps(hosts, nights, rule, grouping));
    out.push_back(std::move(cell));
  }
  return out;
}

std::vector<std::vector<double>> ValuesByNight(const HostSeries& host, size_t axis_nights) {
  std::vector<std::vector<double>> out(axis_nights);
  for (size_t i = 0; i < host.axis.size(); ++i) {
    const std::vector<double>& values = host.series.nights[i].values;
    std::vector<double>& night = out.at(host.axis[i]);
    night.insert(night.end(), values.begin(), values.end());
  }
  return out;
}

std::string DescribeLabChange(const LabCell& cell, const LabChange& c) {
  std::string ratios;
  for (const HostChange& h : c.changes)
    ratios += (ratios.empty() ? "" : ", ") + h.host + " " + FormatNumber(h.ratio, "%.3f") +
              (h.night != c.night ? " at night " + std::to_string(h.night + 1) : "");
  const std::string when =
      " at night " + std::to_string(c.night + 1) + " (" + cell.nights[c.night] + ")";
  const size_t hosts = cell.hosts.size();
  switch (c.scope) {
    case ChangeScope::Suite:
      return "suite change" + when + " on all " + std::to_string(hosts) + " hosts (" + ratios +
             ")" + (c.joint ? ", found jointly (p " + FormatNumber(c.joint_p, "%.3g") + ")" : "") +
             ": QEMU, kernel or storbed";
    case ChangeScope::Host:
      return c.changes[0].host + "'s change" + when + ": ratio " +
             FormatNumber(c.changes[0].ratio, "%.3f") + (hosts > 1 ? ", no other host's" : "");
    case ChangeScope::SomeHosts:
      break;
  }
  return "change" + when + " on " + std::to_string(c.changes.size()) + " of " +
         std::to_string(hosts) + " hosts (" + ratios + ")";
}

}  // namespace storbed

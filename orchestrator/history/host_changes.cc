#include "history/host_changes.h"

#include <algorithm>
#include <limits>

#include "judging/joint_change_scan.h"
#include "median.h"

namespace storbed {

const char* ToString(ChangeScope scope) {
  switch (scope) {
    case ChangeScope::Suite:
      return "suite";
    case ChangeScope::Host:
      return "host";
    case ChangeScope::SomeHosts:
      return "some hosts";
  }
  return "?";
}

std::vector<LabChange> SuiteSteps(const std::vector<std::string>& hosts,
                                  const std::vector<std::vector<std::vector<double>>>& nights,
                                  const ChangePointOptions& rule, const ChangeGrouping& grouping) {
  if (hosts.size() < 2) return {};
  std::vector<std::vector<double>> levels;
  for (const auto& host : nights) {
    std::vector<double> row;
    for (const std::vector<double>& values : host)
      row.push_back(values.empty() ? std::numeric_limits<double>::quiet_NaN() : Median(values));
    levels.push_back(std::move(row));
  }
  JointScanOptions options;
  options.max_p = rule.max_p;
  options.series_p = grouping.every_host_p;
  options.min_nights = rule.min_nights;
  options.min_change = rule.min_change;
  options.within = grouping.within_nights;
  options.permutations = rule.permutations;
  options.seed = rule.seed;
  std::vector<LabChange> out;
  for (const JointStep& step : FindJointSteps(levels, options)) {
    LabChange change{ChangeScope::Suite, step.index, {}, true, step.p};
    for (size_t h = 0; h < hosts.size(); ++h)
      change.changes.push_back({hosts[h], step.index, step.ratios[h]});
    out.push_back(std::move(change));
  }
  return out;
}

namespace {

// Removes from `changes`, per host, its own change nearest each suite step in the step's
// direction within `within` nights: the joint scan found that step on every host already.
void AbsorbIntoSuiteSteps(const std::vector<LabChange>& suite_steps, size_t within,
                          std::vector<HostChange>& changes) {
  for (const LabChange& step : suite_steps) {
    size_t down = 0;
    for (const HostChange& h : step.changes) down += h.ratio < 1;
    const bool up = 2 * down < step.changes.size();
    for (const HostChange& h : step.changes) {
      auto nearest = changes.end();
      size_t nearest_distance = within + 1;
      for (auto it = changes.begin(); it != changes.end(); ++it) {
        const size_t distance =
            it->night > step.night ? it->night - step.night : step.night - it->night;
        if (it->host == h.host && (it->ratio > 1) == up && distance < nearest_distance) {
          nearest = it;
          nearest_distance = distance;
        }
      }
      if (nearest != changes.end()) changes.erase(nearest);
    }
  }
}

}  // namespace

std::vector<LabChange> ClassifyChanges(const std::vector<std::string>& hosts,
                                       std::vector<HostChange> changes,
                                       const ChangeGrouping& grouping,
                                       const std::vector<LabChange>& suite_steps) {
  AbsorbIntoSuiteSteps(suite_steps, grouping.within_nights, changes);
  std::stable_sort(changes.begin(), changes.end(),
                   [](const HostChange& a, const HostChange& b) { return a.night < b.night; });
  const auto host_rank = [&](const std::string& host) {
    return std::find(hosts.begin(), hosts.end(), host) - hosts.begin();
  };
  std::vector<bool> taken(changes.size(), false);
  std::vector<LabChange> out;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (taken[i]) continue;
    LabChange group;
    group.night = changes[i].night;
    const bool up = changes[i].ratio > 1;
    for (size_t j = i; j < changes.size(); ++j) {
      const HostChange& c = changes[j];
      if (taken[j] || c.night > group.night + grouping.within_nights || (c.ratio > 1) != up)
        continue;
      const bool host_there = std::any_of(group.changes.begin(), group.changes.end(),
                                          [&](const HostChange& g) { return g.host == c.host; });
      if (host_there) continue;
      group.changes.push_back(c);
      taken[j] = true;
    }
    std::sort(group.changes.begin(), group.changes.end(),
              [&](const HostChange& a, const HostChange& b) {
                return host_rank(a.host) < host_rank(b.host);
              });
    const size_t seen = group.changes.size();
    group.scope = seen == 1                                  ? ChangeScope::Host
                  : seen >= hosts.size() && hosts.size() > 1 ? ChangeScope::Suite
                                                             : ChangeScope::SomeHosts;
    out.push_back(std::move(group));
  }
  out.insert(out.end(), suite_steps.begin(), suite_steps.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const LabChange& a, const LabChange& b) { return a.night < b.night; });
  return out;
}

std::string NightOf(const std::string& started_at) { return started_at.substr(0, 10); }

}  // namespace storbed

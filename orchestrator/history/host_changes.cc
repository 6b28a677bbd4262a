#include "history/host_changes.h"

#include <algorithm>

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

std::vector<LabChange> ClassifyChanges(const std::vector<std::string>& hosts,
                                       std::vector<HostChange> changes,
                                       const ChangeGrouping& grouping) {
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
  return out;
}

std::string NightOf(const std::string& started_at) { return started_at.substr(0, 10); }

}  // namespace storbed

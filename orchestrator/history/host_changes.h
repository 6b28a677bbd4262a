// Whose change a change point is. A lab's hosts run the same suite every night, so a step
// that every host shows the same night came with the suite (a new QEMU, kernel or storbed),
// and a step that one host shows alone is that host's (its drive, firmware, a neighbour).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "history/change_points.h"

namespace storbed {

// One host's change point in one cell, on the lab's shared night axis.
struct HostChange {
  std::string host;
  size_t night = 0;  // index of the first night at the new level, on the shared axis
  double ratio = 1;  // after / before
};

enum class ChangeScope {
  Suite,      // every host of the cell, the same night, the same way
  Host,       // one host alone
  SomeHosts,  // more than one host but not all: named, not guessed at
};

const char* ToString(ChangeScope scope);

struct LabChange {
  ChangeScope scope = ChangeScope::Host;
  size_t night = 0;                 // the earliest night of its changes
  std::vector<HostChange> changes;  // one per host that shows it, in `hosts` order
  bool joint = false;               // found by the hosts' joint scan (SuiteSteps)
  double joint_p = 1;               // and its p-value there
};

struct ChangeGrouping {
  // Changes this many nights apart still count as one night's: the scan places a 10% step
  // a night or two off in 14% of series (docs/history.md), on each host on its own.
  size_t within_nights = 1;
  // A step the hosts' joint scan finds is the suite's only when each host's own step at the
  // night the others place it has a one-sided p at most this (judging/joint_change_scan.h).
  double every_host_p = 0.05;
};

// The steps every host of a cell shows at once (judging/joint_change_scan.h), as suite
// changes. `nights[h][night]`: host h's run values on the lab's night axis (empty when it did
// not run there); each night's level is their median. `rule` gives the level, the minimum
// nights a side and the minimum change, as for each host's own change points. Fewer than 2
// hosts: none.
std::vector<LabChange> SuiteSteps(const std::vector<std::string>& hosts,
                                  const std::vector<std::vector<std::vector<double>>>& nights,
                                  const ChangePointOptions& rule = {},
                                  const ChangeGrouping& grouping = {});

// Groups the change points of one cell's hosts (`hosts`: every host with a series in the
// cell) into lab changes, in night order: changes in one direction within
// `within_nights` of the group's first, at most one per host. A lab of one host has only
// host changes: nothing tells the suite from the host. The `suite_steps` (SuiteSteps) come
// first: each takes, per host, that host's own change nearest it in its direction within
// `within_nights`, and the rest are grouped.
std::vector<LabChange> ClassifyChanges(const std::vector<std::string>& hosts,
                                       std::vector<HostChange> changes,
                                       const ChangeGrouping& grouping = {},
                                       const std::vector<LabChange>& suite_steps = {});

// The UTC date of an ISO 8601 start time ("2026-12-07T02:00:03Z" -> "2026-12-07"): the
// night a session belongs to, for lining hosts up. A lab runs its suite once a night.
std::string NightOf(const std::string& started_at);

}  // namespace storbed

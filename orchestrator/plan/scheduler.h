// Spreads a plan's units (one boot each, with its runs) over hosts that run guests in
// parallel, and moves work off a host that fails. Pure logic: what running a unit means
// is the UnitExecutor's business, so the rules are tested with a fake.
//
// Rules:
// - A group's units run one after another on one host (an A/B pair never mixes hosts).
// - Each host runs up to max_guests groups at once, one thread per slot. With more than
//   one slot in all, the largest groups (by estimated work) start first and every idle
//   slot takes the next one, which balances the load; with one slot the plan order holds.
// - A host failure (HostFailedError) marks the host failed; the group it was running goes
//   back to the front of the queue, after its units' records are forgotten, so it reruns
//   whole on another host. When no host is left, the remaining groups are abandoned.
// - Local groups (bare metal) need no host: with one slot they run in plan order, else on
//   the calling thread after every host has finished, so they never share this machine
//   with guests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.h"

namespace storbed {

// The host, not the run, failed: it cannot be reached or cannot start a machine.
class HostFailedError : public Error {
 public:
  explicit HostFailedError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

struct ScheduledHost {
  std::string name;
  uint32_t max_guests = 1;
};

struct WorkGroup {
  std::vector<size_t> units;  // run in this order, on one host
  size_t work = 0;            // estimated cost (runs), for balancing
  bool local = false;         // runs on this machine, whatever the hosts (bare metal)
};

struct HostFailure {
  std::string host;
  std::string error;
  std::vector<size_t> moved_units;  // the group that goes to another host (or is abandoned)
};

class UnitExecutor {
 public:
  virtual ~UnitExecutor() = default;
  // Runs `unit` on `host` ("" for a local unit) and records its runs; a run's own
  // failure is recorded, not thrown. Throws HostFailedError when the host failed;
  // anything else thrown stops the schedule (no new units start) and is rethrown.
  virtual void Run(size_t unit, const std::string& host) = 0;
  // The unit's group leaves a failed host: drop whatever its attempt there recorded.
  virtual void Forget(size_t unit) = 0;
  // Notes a host failure (called once per failed attempt, before the group moves).
  virtual void HostFailed(const HostFailure& failure) = 0;
  // No host is left for `unit`: record its runs as failed with `why`.
  virtual void Abandon(size_t unit, const std::string& why) = 0;
};

enum class HostStatus { Unused, Ok, Failed };
std::string ToString(HostStatus s);

// Runs every group; returns each host's status, in the order of `hosts`. Executor calls
// other than Run are serialized. Rethrows the first exception other than HostFailedError
// after every thread has stopped.
std::vector<HostStatus> RunSchedule(const std::vector<WorkGroup>& groups,
                                    const std::vector<ScheduledHost>& hosts,
                                    UnitExecutor& executor);

}  // namespace storbed

// Gets storbed-agent running in a booted foreign guest, the way machine.agent_push asks:
// through the guest's qemu-ga (backend/qga_push.h), through cloud-init reading storbed's
// NoCloud seed disk (execute/nocloud_seed.h), or whichever works first (auto). Shared by
// both backends: each gives its own QGA channel and its own view of the agent's port.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>

#include "backend/machine_spec.h"
#include "backend/qga_client.h"
#include "backend/qga_push.h"
#include "error.h"

namespace storbed {

// Neither way got the agent in; the message names both and what each ran into.
class AgentEntryError : public Error {
 public:
  explicit AgentEntryError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// What the host can watch while the guest boots.
struct AgentEntryPorts {
  QgaChannel* qga = nullptr;  // null when the machine has no QGA channel (push cloud-init)
  // True once a process in the guest opened org.storbed.agent.0 (QMP query-chardev's
  // frontend-open of the agent's chardev): the agent is up, whoever started it.
  std::function<bool()> agent_port_open;
};

// Returns once the agent's port is open, with how it got in (report.path "qga" or
// "cloud-init"). Throws AgentEntryError at `deadline`, or at once when the guest shows that
// neither way can work (qemu-ga blocks guest-exec and the guest has no usable cloud-init).
// When qemu-ga cannot push and cannot show whether the guest has cloud-init,
// `cloud_init_grace` is left for cloud-init before the run fails.
AgentPushReport BringAgentIn(const ForeignRoot& foreign, const AgentEntryPorts& ports,
                             Clock::time_point deadline, const std::function<void()>& check,
                             std::chrono::milliseconds cloud_init_grace = std::chrono::seconds(60));

}  // namespace storbed

// Why a run lost its machine, in words that name the true cause: QEMU died, the guest
// kernel panicked, the guest or QEMU hangs (no heartbeat), or libvirtd went away.
#pragma once

#include <exception>
#include <string>

#include "backend/backend.h"

namespace storbed {

struct MachineLoss {
  std::string record_text;  // the failed run's error
  std::string skip_reason;  // the later runs are "skipped: <skip_reason> during <run>"
};

// `link_error` is what ended the agent call. The agent link often notices a dead guest
// first (EOF on its socket) while QEMU is still being reaped, so QEMU gets a moment.
MachineLoss ExplainMachineLoss(Machine& machine, const std::exception& link_error);

// "QEMU (pid 123) is stopped (state T: SIGSTOP or a debugger)", "... is running (state
// R)"; "" when pid is not a process here.
std::string QemuProcessStateText(int pid, const std::string& proc_root = "/proc");

}  // namespace storbed

// The backend interface: something that boots a MachineSpec and hands back a running
// machine whose agent has said hello. Implementations: backend_qemu (more to come).
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/agent_link.h"
#include "backend/qmp_client.h"
#include "backend/machine_spec.h"
#include "protocol.h"

namespace storbed {

// The machine's process is gone. Carries how it ended and the last lines of its logs.
class MachineDiedError : public std::runtime_error {
 public:
  MachineDiedError(const std::string& machine, const std::string& exit_description,
                   const std::string& qemu_log_tail, const std::string& console_tail);
  const std::string& exit_description() const { return exit_description_; }
  const std::string& qemu_log_tail() const { return qemu_log_tail_; }
  const std::string& console_tail() const { return console_tail_; }

 private:
  std::string exit_description_, qemu_log_tail_, console_tail_;
};

// The machine runs but did not become usable (the agent answered hello with an error).
class MachineStartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A booted guest. Destroying it stops the VM on every path; no process is left behind.
class Machine {
 public:
  virtual ~Machine() = default;
  // Connected, and the agent has said hello.
  virtual AgentLink& Agent() = 0;
  virtual const HelloReply& Hello() const = 0;
  // Asks the agent to power off, waits, and escalates (QMP quit, SIGTERM, SIGKILL).
  // Never throws; the VM is gone afterwards.
  virtual void Shutdown() = 0;
  // Throws MachineDiedError (exit description and the last 20 lines of the logs) if the
  // VM process has exited.
  virtual void CheckAlive() = 0;
  virtual int Pid() const = 0;
  // The machine's QMP connection (thread-safe: a sampler thread may use it beside the
  // main thread). Valid while the machine lives; after Shutdown() commands fail with
  // QmpConnectionError.
  virtual QmpClient& Qmp() = 0;
  virtual const std::vector<std::string>& Argv() const = 0;
  virtual std::string ConsoleLogPath() const = 0;
  virtual std::string QemuVersion() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  // Boots `spec` and waits up to boot_timeout for the agent's hello. Throws
  // MachineSpecError, MachineDiedError, MachineStartError, AgentTimeoutError,
  // InterruptedError; on every throw the VM is already stopped.
  virtual std::unique_ptr<Machine> Start(const MachineSpec& spec,
                                         std::chrono::seconds boot_timeout) = 0;
};

}  // namespace storbed

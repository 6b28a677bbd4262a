// The backend interface: something that boots a MachineSpec and hands back a running
// machine whose agent has said hello. Implementations: backend_qemu (QEMU started by us)
// and libvirt/backend_libvirt (a transient libvirt domain, local or remote).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/agent_link.h"
#include "backend/block_counters.h"
#include "backend/machine_spec.h"
#include "backend/qmp_executor.h"
#include "error.h"
#include "protocol.h"

namespace storbed {

// The "Kernel panic - not syncing: ..." line of a guest console log; "" when none.
std::string KernelPanicLine(const std::string& console_text);

// The machine's process is gone. Carries how it ended and the last lines of its logs;
// a guest kernel panic (panic=-1 reboots, and -no-reboot ends QEMU) is named first.
class MachineDiedError : public Error {
 public:
  MachineDiedError(const std::string& machine, const std::string& exit_description,
                   const std::string& qemu_log_tail, const std::string& console_tail);
  const std::string& exit_description() const { return exit_description_; }
  const std::string& qemu_log_tail() const { return qemu_log_tail_; }
  const std::string& console_tail() const { return console_tail_; }
  const std::string& panic_line() const { return panic_line_; }  // "" when no panic

 private:
  std::string exit_description_, qemu_log_tail_, console_tail_, panic_line_;
};

// The connection that runs the machine (libvirtd's) is gone, while the machine itself may
// still run: the run cannot go on, and the guest is not to blame.
class MachineHostLostError : public Error {
 public:
  explicit MachineHostLostError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// The machine runs but did not become usable (the agent answered hello with an error).
class MachineStartError : public Error {
 public:
  explicit MachineStartError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// What the manifest records of a booted machine: how it was started and how long it took.
struct MachineFacts {
  // The QEMU command line (argv[0] first) when known; under libvirt the one libvirt built.
  std::vector<std::string> argv;
  std::string qemu_version;
  // Seconds from starting QEMU (under libvirt: asking for the domain) to the agent's hello
  // reply; nullopt when the backend did not time it.
  std::optional<double> start_to_hello_s;
  // How the agent got into the guest: {"path": "initramfs"} (it is the guest's /init) or a
  // foreign guest's push (backend/qga_push.h: {"path": "qga", ...}).
  nlohmann::json agent_push = {{"path", "initramfs"}};
  // Backend-specific facts (libvirt: URI, domain name, domain XML); {} when none.
  nlohmann::json backend_details = nlohmann::json::object();
};

// A booted guest. Destroying it stops the VM on every path; no process is left behind.
class Machine {
 public:
  virtual ~Machine() = default;
  // Connected, and the agent has said hello.
  virtual AgentLink& Agent() = 0;
  virtual const HelloReply& Hello() const = 0;
  // How the machine was started, for the manifest.
  virtual MachineFacts Facts() const = 0;
  // Asks the agent to power off, waits, and escalates (QMP quit, SIGTERM, SIGKILL).
  // Never throws; the VM is gone afterwards.
  virtual void Shutdown() = 0;
  // Throws MachineDiedError (exit description and the last 20 lines of the logs) if the
  // VM process has exited.
  virtual void CheckAlive() = 0;
  // The QEMU process on this host; -1 when it runs elsewhere (a remote libvirt host).
  virtual int Pid() const = 0;
  // True when the machine's QEMU, backing files and host devices are on this host, so
  // /proc and /sys samplers can look at them.
  virtual bool OnThisHost() const { return true; }
  // Runs QMP commands on the machine's QEMU (thread-safe: a sampler thread may use it
  // beside the main thread; commands time out after `timeout`). After Shutdown() commands
  // fail with QmpConnectionError.
  virtual QmpExecutor Qmp(std::chrono::milliseconds timeout) = 0;
  // The QEMU device id of `disk` ("dev-d0" under the QEMU backend, libvirt's user alias
  // "ua-d0" under libvirt): what query-blockstats' qdev and virtqueue paths name.
  virtual std::string DeviceId(const DiskSpec& disk) const { return "dev-" + disk.id; }
  // Where the QEMU block layer counters of `disk` come from when not from QMP
  // query-blockstats (libvirt's bulk stats). nullopt: the samplers use QMP.
  struct BlockStatsSource {
    std::string name;                     // "libvirt block.0 (GetAllDomainStats)"
    std::function<BlockCounters()> read;  // throws on failure
  };
  virtual std::optional<BlockStatsSource> BlockStats(const DiskSpec&) { return std::nullopt; }
};

// The one hello of a boot: the guest's port holds it until the agent opens it after boot,
// so it is sent once and waited for until `deadline`. Throws MachineStartError naming
// `machine` when the agent answers with an error or anything but a hello reply, and
// whatever the link or check() throw.
HelloReply AwaitAgentHello(AgentLink& agent, const std::string& machine,
                           Clock::time_point deadline, const std::function<void()>& check);

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

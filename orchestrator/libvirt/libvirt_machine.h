// One transient libvirt domain booted from a MachineSpec: the Machine the libvirt
// backend hands out. Launch() uploads, creates the domain and waits for the agent's
// hello; destruction destroys the domain on every path, copies console.log home and
// deletes the per-machine volumes.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/qga_push.h"
#include "libvirt/channel_bridge.h"
#include "libvirt/domain_xml.h"
#include "libvirt/storage_pool.h"
#include "libvirt/virt_handles.h"

namespace storbed {

struct LibvirtMachineConfig {
  std::shared_ptr<LibvirtConnection> conn;
  std::shared_ptr<StoragePool> pool;
  std::string domain_name;
  DomainOwner owner;
  bool on_this_host = true;
  bool upload_backings = false;  // copy backings into the pool even on this host
  std::string version;           // MachineFacts::qemu_version
};

class LibvirtMachine : public Machine {
 public:
  LibvirtMachine(MachineSpec spec, LibvirtMachineConfig config);
  ~LibvirtMachine() override;

  // Uploads, creates the domain (AUTODESTROY: it dies with our connection), writes
  // domain.xml and waits until `deadline` for the hello. Throws like Backend::Start.
  void Launch(Clock::time_point deadline);
  // After a failed boot step: if the domain is going away, say so instead.
  void ThrowIfDiedShortly();

  AgentLink& Agent() override { return *agent_; }
  const HelloReply& Hello() const override { return hello_; }
  MachineFacts Facts() const override;
  void Shutdown() override;
  void CheckAlive() override;
  int Pid() const override { return pid_; }
  bool OnThisHost() const override { return cfg_.on_this_host; }
  QmpExecutor Qmp(std::chrono::milliseconds timeout) override;
  std::string DeviceId(const DiskSpec& disk) const override { return LibvirtDeviceId(disk); }
  std::optional<BlockStatsSource> BlockStats(const DiskSpec& disk) override;

  // How the domain ended, from libvirt's lifecycle events; "" while it runs.
  struct Ending;

 private:
  // MachineFacts::backend_details: the URI, the domain and where each disk's stats come from.
  nlohmann::json BackendDetails() const;
  bool Active() const;
  // False once libvirtd closed the connection or died (the event loop notices).
  bool ConnectionAlive() const;
  std::string ConnectionLostText() const;
  // After libvirtd is gone: stops the domain's QEMU and removes the per-machine files in
  // the pool dir directly (this host only; a remote host keeps them for `storbed cleanup`).
  void TearDownWithoutLibvirtd() noexcept;
  bool WaitGone(std::chrono::milliseconds timeout);
  void CopyConsoleHome() const noexcept;
  std::string QemuLogTail() const;
  // A foreign guest: gets storbed-agent in (through libvirt's qemu-ga channel) once the
  // domain runs; returns once the agent's port is open.
  AgentPushReport BringForeignAgentIn(Clock::time_point deadline,
                                      const std::function<void()>& check);
  // True once a process in the guest opened org.storbed.agent.0 (QMP query-chardev).
  bool AgentPortOpen();

  MachineSpec spec_;
  LibvirtMachineConfig cfg_;
  std::string console_volume_;
  std::string pool_dir_;  // the pool's directory on the libvirt host
  std::vector<std::string> machine_volumes_;  // deleted at the end
  std::shared_ptr<Ending> ending_;
  int lifecycle_callback_ = -1;
  std::shared_ptr<virDomain> domain_;
  std::shared_ptr<std::atomic<bool>> qmp_open_ = std::make_shared<std::atomic<bool>>(false);
  int pid_ = -1;
  std::vector<std::string> argv_;
  // Declared after the domain: closed before it is destroyed.
  std::unique_ptr<ChannelBridge> bridge_;
  std::optional<AgentLink> agent_;
  HelloReply hello_;
  std::optional<double> start_to_hello_s_;
  std::optional<AgentPushReport> push_;
};

}  // namespace storbed

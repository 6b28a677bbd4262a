#include "libvirt/libvirt_machine.h"

#include <libvirt/libvirt-qemu.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "backend/backend_qemu.h"
#include "backend/agent_entry.h"
#include "backend/interrupt.h"
#include "backend/qemu_argv.h"
#include "backend/qmp_client.h"
#include "libvirt/libvirt_qga.h"
#include "libvirt/libvirt_stats.h"
#include "libvirt/monitor_reply.h"
#include "libvirt/orphaned_qemu.h"
#include "libvirt/qemu_process.h"
#include "protocol.h"

namespace storbed {

using namespace std::chrono_literals;

struct LibvirtMachine::Ending {
  std::string domain_name;
  std::mutex mu;
  std::string how;
};

namespace {

constexpr std::size_t kLogTailLines = 20;

std::string StoppedText(int detail) {
  switch (detail) {
    case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN: return "stopped: the guest powered off or reset";
    case VIR_DOMAIN_EVENT_STOPPED_DESTROYED: return "was destroyed (virDomainDestroy)";
    case VIR_DOMAIN_EVENT_STOPPED_CRASHED: return "stopped: the guest crashed";
    case VIR_DOMAIN_EVENT_STOPPED_FAILED: return "died or failed (see the QEMU log)";
    default: return "stopped (libvirt detail " + std::to_string(detail) + ")";
  }
}

int OnLifecycle(virConnectPtr, virDomainPtr dom, int event, int detail, void* opaque) {
  auto& ending = **static_cast<std::shared_ptr<LibvirtMachine::Ending>*>(opaque);
  if (ending.domain_name != virDomainGetName(dom)) return 0;
  std::lock_guard<std::mutex> lock(ending.mu);
  if (event == VIR_DOMAIN_EVENT_STOPPED) ending.how = StoppedText(detail);
  if (event == VIR_DOMAIN_EVENT_CRASHED && ending.how.empty()) ending.how = "stopped: the guest crashed";
  return 0;
}

void FreeEnding(void* opaque) { delete static_cast<std::shared_ptr<LibvirtMachine::Ending>*>(opaque); }

}  // namespace

LibvirtMachine::LibvirtMachine(MachineSpec spec, LibvirtMachineConfig config)
    : spec_(std::move(spec)), cfg_(std::move(config)) {
  console_volume_ = cfg_.domain_name + ".console.log";
  ending_ = std::make_shared<Ending>();
  ending_->domain_name = cfg_.domain_name;
}

LibvirtMachine::~LibvirtMachine() {
  qmp_open_->store(false);
  agent_.reset();
  bridge_.reset();
  if (domain_ && !ConnectionAlive()) {
    TearDownWithoutLibvirtd();
    return;
  }
  if (domain_ && Active()) {
    virDomainDestroy(domain_.get());
    virResetLastError();
  }
  domain_.reset();
  if (lifecycle_callback_ >= 0) {
    virConnectDomainEventDeregisterAny(cfg_.conn->get(), lifecycle_callback_);
    virResetLastError();
  }
  CopyConsoleHome();
  cfg_.pool->Delete(console_volume_);
  for (const std::string& v : machine_volumes_) cfg_.pool->Delete(v);
}

void LibvirtMachine::Launch(Clock::time_point deadline) {
  const std::string& uri = cfg_.conn->uri();
  DomainPlacement place;
  place.domain_name = cfg_.domain_name;
  place.owner = cfg_.owner;
  // Kernel and initrd always travel through the pool, so this path is the remote one. A
  // foreign image without one boots with its own bootloader.
  if (!spec_.kernel.empty()) place.kernel = cfg_.pool->UploadShared(spec_.kernel);
  if (!spec_.initrd.empty()) place.initrd = cfg_.pool->UploadShared(spec_.initrd);
  for (const DiskSpec& d : spec_.disks) {
    if (!d.vfio_host.empty()) {
      place.disk_paths.push_back("");  // a <hostdev>: the PCI address is its source
    } else if (d.driver != "file") {
      // A host device names one on the libvirt host; null-co has no backing at all.
      place.disk_paths.push_back(d.backing);
    } else if (cfg_.on_this_host && !cfg_.upload_backings) {
      // In place: no copy of a large file, and the host device sampler sees the real one.
      place.disk_paths.push_back(std::filesystem::absolute(d.backing).string());
    } else {
      const std::string name = cfg_.domain_name + "-" + d.id + ".img";
      machine_volumes_.push_back(name);
      place.disk_paths.push_back(cfg_.pool->Upload(d.backing, name));
    }
  }
  if (spec_.foreign) {
    // libvirtd opens these itself, from its own working directory.
    ForeignRoot& f = *spec_.foreign;
    for (std::string* path : {&f.overlay, &f.seed_image, &f.agent_disk})
      if (!path->empty()) *path = std::filesystem::absolute(*path).string();
  }
  cfg_.pool->Delete(console_volume_);  // a previous run's log must not pass for this one's
  pool_dir_ = cfg_.pool->Dir();
  place.console_path = pool_dir_ + "/" + console_volume_;
  const std::string xml = BuildDomainXml(spec_, place);
  std::ofstream(spec_.run_dir + "/domain-requested.xml") << xml;

  lifecycle_callback_ = virConnectDomainEventRegisterAny(
      cfg_.conn->get(), nullptr, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
      VIR_DOMAIN_EVENT_CALLBACK(OnLifecycle), new std::shared_ptr<Ending>(ending_), FreeEnding);
  if (lifecycle_callback_ < 0) virResetLastError();  // only the death reason is lost

  ThrowIfInterrupted();
  const auto start = Clock::now();
  virDomainPtr raw = virDomainCreateXML(cfg_.conn->get(), xml.c_str(), VIR_DOMAIN_START_AUTODESTROY);
  if (raw == nullptr) ThrowLastLibvirtError(uri, "start domain " + cfg_.domain_name);
  domain_ = std::shared_ptr<virDomain>(raw, [](virDomainPtr d) { virDomainFree(d); });
  qmp_open_->store(true);
  std::ofstream(spec_.run_dir + "/domain.xml") << TakeLibvirtString(virDomainGetXMLDesc(raw, 0));
  if (cfg_.on_this_host) {
    pid_ = FindDomainQemuPid("/proc", cfg_.domain_name);
    if (pid_ > 0) argv_ = ReadCmdline("/proc", pid_);
  }

  auto check = [this] { CheckAlive(); };
  if (spec_.foreign) push_ = BringForeignAgentIn(deadline, check);

  UniqueFd agent_end;
  bridge_ = ChannelBridge::Open(cfg_.conn->get(), raw, uri, kAgentPortName, &agent_end);
  agent_ = AgentLink::FromSocket(std::move(agent_end),
                                 "channel " + std::string(kAgentPortName) + " of libvirt domain " +
                                     cfg_.domain_name);
  hello_ = AwaitAgentHello(*agent_, spec_.name, deadline, check);
  start_to_hello_s_ = std::chrono::duration<double>(Clock::now() - start).count();
}

AgentPushReport LibvirtMachine::BringForeignAgentIn(Clock::time_point deadline,
                                                   const std::function<void()>& check) {
  const ForeignRoot& foreign = *spec_.foreign;
  std::optional<LibvirtQga> qga;
  if (foreign.HasQgaChannel()) qga.emplace(domain_, cfg_.conn->uri(), cfg_.domain_name);
  const AgentEntryPorts ports{.qga = qga ? &*qga : nullptr,
                              .agent_port_open = [this] { return AgentPortOpen(); }};
  return BringAgentIn(foreign, ports, deadline, check);
}

bool LibvirtMachine::AgentPortOpen() {
  return ChardevFrontendOpen(Qmp(5s)("query-chardev", nlohmann::json::object()),
                             kAgentChardevLabel);
}

void LibvirtMachine::ThrowIfDiedShortly() {
  if (domain_ && WaitGone(1s)) CheckAlive();
}

bool LibvirtMachine::Active() const {
  if (!domain_) return false;
  const int active = virDomainIsActive(domain_.get());
  // A transient domain that stopped is gone: the lookup fails, which means the same.
  if (active < 0) virResetLastError();
  return active == 1;
}

bool LibvirtMachine::ConnectionAlive() const {
  const int alive = virConnectIsAlive(cfg_.conn->get());
  if (alive < 0) virResetLastError();
  return alive == 1;
}

std::string LibvirtMachine::ConnectionLostText() const {
  std::string text = "lost the connection to libvirtd at " + cfg_.conn->uri() + " while domain " +
                     cfg_.domain_name + " ran: the daemon stopped or died, so the domain " +
                     "cannot be controlled";
  if (cfg_.on_this_host && pid_ > 0)
    text += "; storbed stops its QEMU (pid " + std::to_string(pid_) + ") itself";
  return text;
}

void LibvirtMachine::TearDownWithoutLibvirtd() noexcept {
  if (!cfg_.on_this_host) return;
  try {
    StopOrphanedDomainQemu(pid_, cfg_.domain_name, 5s);
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path console = fs::path(pool_dir_) / console_volume_;
    fs::copy_file(console, spec_.run_dir + "/console.log", fs::copy_options::overwrite_existing, ec);
    fs::remove(console, ec);
    for (const std::string& v : machine_volumes_) fs::remove(fs::path(pool_dir_) / v, ec);
  } catch (const std::exception&) {
    // Best effort: `storbed cleanup` finds what is left by its owner marker.
  }
}

bool LibvirtMachine::WaitGone(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Active()) {
    if (Interrupted() || Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

void LibvirtMachine::CheckAlive() {
  if (domain_) {
    if (!ConnectionAlive()) throw MachineHostLostError(ConnectionLostText());
    const int active = virDomainIsActive(domain_.get());
    if (active == 1) return;
    // A daemon that just died fails the call in its RPC layer before the event loop has
    // marked the connection closed: that is a lost daemon, not a gone domain.
    const virError* err = virGetLastError();
    const bool rpc_failed =
        active < 0 && err && (err->domain == VIR_FROM_RPC || err->domain == VIR_FROM_REMOTE);
    virResetLastError();
    if (rpc_failed) throw MachineHostLostError(ConnectionLostText());
  }
  std::string how;
  {
    std::lock_guard<std::mutex> lock(ending_->mu);
    how = ending_->how;
  }
  // MachineDiedError prints "QEMU <how>".
  if (!domain_) how = "was never started";
  if (how.empty()) how = "is gone: domain " + cfg_.domain_name + " is no longer running";
  CopyConsoleHome();
  throw MachineDiedError(spec_.name, how + " (libvirt at " + cfg_.conn->uri() + ")",
                         QemuLogTail(),
                         ConsoleTailOfFile(spec_.run_dir + "/console.log", kLogTailLines));
}

void LibvirtMachine::Shutdown() {
  if (!Active()) return;
  auto check = [this] { CheckAlive(); };
  if (agent_ && !Interrupted()) {
    try {
      agent_->Call(ShutdownRequest{}, 10s, check);
    } catch (const std::exception&) {
      // Dead, silent or interrupted: destroying below covers every case.
    }
  }
  // The agent powers the guest off; on_poweroff=destroy ends the domain. A pushed agent
  // only exits: the guest's OS keeps running on its throwaway overlay, so end it at once
  // (as the QEMU backend's QMP quit does).
  if (spec_.foreign || !WaitGone(30s)) {
    virDomainDestroy(domain_.get());
    virResetLastError();
  }
  qmp_open_->store(false);
}

QmpExecutor LibvirtMachine::Qmp(std::chrono::milliseconds) {
  // libvirt's monitor calls have no per-call timeout; its own job timeout (30 s) bounds
  // a stuck QEMU.
  return [domain = domain_, open = qmp_open_, uri = cfg_.conn->uri()](
             const std::string& command, const nlohmann::json& args) {
    if (!domain || !open->load()) throw QmpConnectionError("the machine has no QMP connection");
    char* result = nullptr;
    const std::string text = MonitorCommandText(command, args);
    if (virDomainQemuMonitorCommand(domain.get(), text.c_str(), &result, 0) < 0) {
      throw QmpConnectionError("libvirt at " + uri + ": QMP " + command + ": " +
                               TakeLastLibvirtError().message);
    }
    return ParseMonitorReply(command, TakeLibvirtString(result));
  };
}

std::optional<Machine::BlockStatsSource> LibvirtMachine::BlockStats(const DiskSpec& disk) {
  // NVMe comes from <qemu:commandline>, which libvirt's stats do not cover: QMP it is.
  const std::string dev = TargetDev(spec_, disk);
  if (dev.empty() || !domain_) return std::nullopt;
  return BlockStatsSource{
      .name = "libvirt block stats " + dev + " (virDomainListGetStats)",
      .read = [domain = domain_, uri = cfg_.conn->uri(), dev] {
        return ReadDomainBlockCounters(domain.get(), uri, dev);
      }};
}

MachineFacts LibvirtMachine::Facts() const {
  MachineFacts facts;
  facts.argv = argv_;
  facts.qemu_version = cfg_.version;
  facts.start_to_hello_s = start_to_hello_s_;
  if (push_) facts.agent_push = *push_;
  facts.backend_details = BackendDetails();
  return facts;
}

nlohmann::json LibvirtMachine::BackendDetails() const {
  nlohmann::json stats = nlohmann::json::object();
  for (const DiskSpec& d : spec_.disks) {
    const std::string dev = TargetDev(spec_, d);
    if (IsHostdev(d))
      stats[d.id] = "none: PCI device " + d.vfio_host + " is passed through (<hostdev>), "
                    "so QEMU's block layer never sees its IO";
    else
      stats[d.id] = dev.empty() ? "QMP query-blockstats through libvirt (qemu:commandline disk)"
                                : "libvirt virDomainListGetStats block " + dev;
  }
  return {{"uri", cfg_.conn->uri()},
          {"domain", cfg_.domain_name},
          {"domain_xml_file", spec_.run_dir + "/domain.xml"},
          {"stats_source", stats},
          {"backings", cfg_.on_this_host && !cfg_.upload_backings ? "used in place"
                                                                   : "uploaded to pool storbed"}};
}

void LibvirtMachine::CopyConsoleHome() const noexcept {
  try {
    cfg_.pool->Download(console_volume_, spec_.run_dir + "/console.log");
  } catch (const std::exception&) {
    // No log yet (the domain never started) or the host is gone: nothing to copy.
  }
}

std::string LibvirtMachine::QemuLogTail() const {
  // libvirt keeps QEMU's stderr in its log dir; only readable here when the daemon is.
  if (!cfg_.on_this_host) return "";
  return TailOfFile("/var/log/libvirt/qemu/" + cfg_.domain_name + ".log", kLogTailLines);
}

}  // namespace storbed

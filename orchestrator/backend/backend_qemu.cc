#include "backend/backend_qemu.h"

#include <stdlib.h>
#include <unistd.h>

#include <boost/filesystem.hpp>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "backend/agent_entry.h"
#include "backend/child_process.h"
#include "backend/interrupt.h"
#include "backend/private_dir.h"
#include "backend/qemu_argv.h"
#include "backend/qmp_client.h"
#include "file_read.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kLogTailLines = 20;

class QemuMachine : public Machine {
 public:
  QemuMachine(MachineSpec spec, std::vector<std::string> argv, std::string version)
      : spec_(std::move(spec)),
        paths_(PathsIn(spec_.run_dir)),
        argv_(std::move(argv)),
        version_(std::move(version)) {}

  ~QemuMachine() override {
    // Close the links first so QEMU sees no half-open sockets, then make sure it is gone.
    agent_.reset();
    qmp_.reset();
    if (child_) child_->Terminate(5s);
  }

  void Boot(std::chrono::seconds boot_timeout) {
    const auto start = Clock::now();
    const auto deadline = start + boot_timeout;
    child_ = ChildProcess::Start(argv_, spec_.run_dir + "/qemu.log");
    auto check = [this] { CheckAlive(); };
    qmp_ = QmpClient::Connect(paths_.qmp_socket, deadline, check);
    RestrictToOwner(paths_.qmp_socket);  // QEMU made it under the umask
    qmp_->Execute("query-status");  // QMP answers commands: the monitor is alive
    if (spec_.foreign) {
      // The guest's own init boots it; the agent comes in through qemu-ga or cloud-init.
      std::optional<QgaClient> qga;
      if (spec_.foreign->HasQgaChannel()) {
        qga.emplace(QgaClient::Connect(paths_.qga_socket, deadline, check));
        RestrictToOwner(paths_.qga_socket);
      }
      const AgentEntryPorts ports{.qga = qga ? &*qga : nullptr,
                                  .agent_port_open = [this] { return AgentPortOpen(); }};
      push_ = BringAgentIn(*spec_.foreign, ports, deadline, check);
    }
    agent_ = AgentLink::ConnectUnix(paths_.agent_socket, deadline, check);
    RestrictToOwner(paths_.agent_socket);
    hello_ = AwaitAgentHello(*agent_, spec_.name, deadline, check);
    start_to_hello_s_ = std::chrono::duration<double>(Clock::now() - start).count();
  }

  // Whether a process in the guest has opened the agent's port (QEMU sets its chardev's
  // frontend-open when the guest side opens a virtio-serial port).
  bool AgentPortOpen() {
    for (const auto& chardev : qmp_->Execute("query-chardev"))
      if (chardev.value("label", std::string()) == "agent") return chardev.value("frontend-open", false);
    return false;
  }

  // After a failed boot step: if QEMU is exiting, its exit is the better explanation.
  void ThrowIfDiedShortly() {
    if (child_ && child_->WaitFor(1s)) CheckAlive();
  }

  AgentLink& Agent() override { return *agent_; }
  const HelloReply& Hello() const override { return hello_; }
  MachineFacts Facts() const override {
    MachineFacts facts;
    facts.argv = argv_;
    facts.qemu_version = version_;
    facts.start_to_hello_s = start_to_hello_s_;
    if (push_) facts.agent_push = *push_;
    return facts;
  }
  int Pid() const override { return child_ ? child_->Pid() : -1; }
  QmpExecutor Qmp(std::chrono::milliseconds timeout) override {
    QmpClient* qmp = qmp_ ? &*qmp_ : nullptr;
    return [qmp, timeout](const std::string& command, const nlohmann::json& args) {
      if (qmp == nullptr) throw QmpConnectionError("the machine has no QMP connection");
      return qmp->Execute(command, args, timeout);
    };
  }

  void CheckAlive() override {
    if (child_ && child_->Running()) return;
    throw MachineDiedError(spec_.name,
                           child_ ? child_->ExitDescription() : "was never started",
                           TailOfFile(spec_.run_dir + "/qemu.log", kLogTailLines),
                           ConsoleTailOfFile(paths_.console_log, kLogTailLines));
  }

  void Shutdown() override {
    if (!child_ || !child_->Running()) return;
    auto check = [this] { CheckAlive(); };
    bool acked = false;
    if (agent_ && !Interrupted()) {
      try {
        acked = std::holds_alternative<ShutdownAck>(agent_->Call(ShutdownRequest{}, 10s, check));
      } catch (const std::exception&) {
        // Dead, silent or interrupted: the escalation below handles every case.
      }
    }
    // The agent powers the guest off; with -no-reboot QEMU then exits by itself. Without
    // an ack (a hung guest or QEMU) there is nothing to wait for. A pushed agent only
    // exits: the guest's OS keeps running, and its disk is a throwaway overlay, so QMP quit.
    if (acked && !spec_.foreign && WaitExit(30s)) return;
    if (qmp_ && !Interrupted()) {
      try {
        qmp_->Execute("quit", {}, 5s);
      } catch (const std::exception&) {
      }
      if (WaitExit(5s)) return;
    }
    child_->Terminate(5s);
  }

 private:
  // Waits for QEMU to exit; gives up early on Ctrl-C so the caller escalates at once.
  bool WaitExit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (child_->Running()) {
      if (Interrupted() || Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
    return true;
  }

  MachineSpec spec_;
  MachinePaths paths_;
  std::vector<std::string> argv_;
  std::string version_;
  // Declared before the links: destroyed after them.
  std::optional<ChildProcess> child_;
  std::optional<QmpClient> qmp_;
  std::optional<AgentLink> agent_;
  HelloReply hello_;
  std::optional<double> start_to_hello_s_;
  std::optional<AgentPushReport> push_;
};

}  // namespace

std::unique_ptr<Machine> QemuBackend::Start(const MachineSpec& spec,
                                            std::chrono::seconds boot_timeout) {
  const MachinePaths paths = PathsIn(spec.run_dir);
  std::vector<std::string> argv = BuildQemuArgv(spec, paths);  // validates first
  MakePrivateDir(spec.run_dir);
  // Stale sockets from an earlier run would only make connect() retry until QEMU
  // replaces them; the old pid file would be misleading.
  for (const std::string& p :
       {paths.agent_socket, paths.qmp_socket, paths.qga_socket, paths.pid_file}) {
    boost::system::error_code ec;
    boost::filesystem::remove(p, ec);
  }
  auto machine =
      std::make_unique<QemuMachine>(spec, std::move(argv), QemuVersionOf(spec.qemu_binary));
  try {
    machine->Boot(boot_timeout);
  } catch (const MachineDiedError&) {
    throw;
  } catch (const InterruptedError&) {
    throw;  // ~QemuMachine stops QEMU on the way out
  } catch (const std::exception&) {
    machine->ThrowIfDiedShortly();
    throw;
  }
  return machine;
}

std::string QemuVersionOf(const std::string& binary) {
  const std::string exe = ProgramPath(binary);
  if (exe.empty()) throw std::runtime_error(binary + ": not found in PATH");
  // Through a file and a deadline, not a pipe read to EOF: a QEMU binary that hangs (or a
  // wrapper script that waits) must not hang storbed before its first run.
  std::string log = (std::filesystem::temp_directory_path() / "storbed-qemu-version-XXXXXX");
  const int fd = ::mkstemp(log.data());
  if (fd < 0)
    throw std::runtime_error("cannot create a temporary file for " + binary + " --version");
  ::close(fd);
  std::string text;
  try {
    ChildProcess c =
        RunToEnd({exe, "--version"}, log, std::chrono::seconds(30), [] { ThrowIfInterrupted(); });
    text = ReadFileOrEmpty(log);
    if (!c.ExitedSuccessfully())
      throw std::runtime_error(binary + " --version " + c.ExitDescription());
  } catch (...) {
    std::remove(log.c_str());
    throw;
  }
  std::remove(log.c_str());
  const std::string first = text.substr(0, text.find('\n'));
  if (first.empty()) throw std::runtime_error(binary + " --version printed nothing");
  return first;
}

std::string TailOfFile(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out;
  for (const std::string& l : tail) out += l + "\n";
  return out;
}

std::string ConsoleTailOfFile(const std::string& path, std::size_t lines) {
  const std::string tail = TailOfFile(path, lines);
  if (!KernelPanicLine(tail).empty()) return tail;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::string panic = KernelPanicLine(line);
    if (!panic.empty()) return line + "\n[...]\n" + tail;
  }
  return tail;
}

KvmGuestProbe MakeKvmBootProbe(Backend& backend, MachineSpec spec,
                               std::chrono::seconds timeout) {
  spec.accel = Accel::Kvm;
  return [&backend, spec, timeout](std::string* why) {
    try {
      std::unique_ptr<Machine> m = backend.Start(spec, timeout);
      m->Shutdown();
      return true;
    } catch (const InterruptedError&) {
      throw;
    } catch (const std::exception& e) {
      *why = e.what();
      return false;
    }
  };
}

}  // namespace storbed

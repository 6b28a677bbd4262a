// Test support, as ninja's FakeCommandRunner: a Backend whose machines boot at once and
// whose agent answers over a real socketpair, from a script (canned results, a death or
// a Ctrl-C at the n-th job). Every boot, job and shutdown is recorded in a FakeLog that
// the test keeps, so orchestration is unit-tested without QEMU.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend/bus_table.h"
#include "backend/interrupt.h"
#include "execute/bare_metal_target.h"
#include "execute/guest_target.h"

namespace storbed::testing {

inline constexpr size_t kNever = std::numeric_limits<size_t>::max();

// What the fake agent does. Jobs are counted per machine, from 0.
struct FakeAgentScript {
  // The reply to a run request; the default is a ResultReply with 1000 IOPS and 4 MiB/s.
  std::function<Message(const JobSpec& job)> run;
  size_t die_at_job = kNever;        // the machine's process exits when asked for this job
  size_t interrupt_at_job = kNever;  // Ctrl-C arrives while this job runs
  bool fail_boot = false;            // Start() throws MachineStartError
};

// What the fakes saw, across every backend a test's factory made. Thread-safe.
struct FakeLog {
  std::mutex mu;
  std::vector<MachineSpec> booted;
  std::vector<JobSpec> jobs;
  std::vector<std::string> shutdowns;  // machine names, in order
};

inline JobResult CannedResult(const JobSpec& job, double iops) {
  JobResult r;
  r.job = job.name;
  r.target = job.target;
  r.ios = 1000;
  r.bytes = 1000ull * 4096;
  r.runtime_s = 1000 / iops;
  r.iops = iops;
  r.mib_s = iops * 4096 / (1 << 20);
  return r;
}

// A script's run that hands each job to the real `storbed-agent --standalone`, on `file`
// in place of the guest's disk: the agent's own IO path, without a guest.
inline std::function<Message(const JobSpec&)> StandaloneAgentRun(std::string agent_path,
                                                                 std::string file,
                                                                 std::string work_dir) {
  return [=](const JobSpec& job) -> Message {
    JobSpec local = job;
    local.target = file;
    try {
      return ResultReply{RunStandaloneAgent(agent_path, local, work_dir, AgentLogName(job.name),
                                            std::chrono::minutes(2))};
    } catch (const std::exception& e) {
      ErrorReply error;
      error.message = e.what();
      return error;
    }
  };
}

class FakeMachine : public Machine {
 public:
  FakeMachine(MachineSpec spec, FakeAgentScript script, std::shared_ptr<FakeLog> log)
      : spec_(std::move(spec)), script_(std::move(script)), log_(std::move(log)) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw std::runtime_error("socketpair failed");
    server_fd_ = fds[1];
    link_.emplace(AgentLink::FromSocket(UniqueFd(fds[0]), "fake-agent"));
    hello_.agent_version = "fake";
    hello_.kernel_release = "6.0.0-fake";
    // The guest's name for the first disk, as its bus's driver gives it.
    const std::string prefix =
        spec_.disks.empty() ? "vd" : RowOf(spec_.disks[0].bus).guest_dev_prefix;
    BlockDeviceInfo disk;
    disk.name = prefix == "nvme" ? "nvme0n1" : prefix + "a";
    disk.path = "/dev/" + disk.name;
    disk.serial = kTestDiskSerial;
    hello_.devices.push_back(disk);
    server_ = std::thread([this] { Serve(); });
  }
  ~FakeMachine() override {
    ::shutdown(server_fd_, SHUT_RDWR);
    server_.join();
    ::close(server_fd_);
  }

  AgentLink& Agent() override { return *link_; }
  const HelloReply& Hello() const override { return hello_; }
  MachineFacts Facts() const override {
    MachineFacts facts;
    facts.argv = argv_;
    facts.qemu_version = "fake-qemu 1.0";
    return facts;
  }
  void Shutdown() override {
    std::lock_guard lock(log_->mu);
    log_->shutdowns.push_back(spec_.name);
  }
  void CheckAlive() override {
    if (interrupted_) throw InterruptedError();
    if (dead_) throw MachineDiedError(spec_.name, "was killed by signal 9 (SIGKILL)", "", "");
  }
  int Pid() const override { return -1; }
  bool OnThisHost() const override { return false; }  // nothing on /proc to sample
  QmpExecutor Qmp(std::chrono::milliseconds) override { return {}; }

 private:
  // One request line in, one reply line out, until the socket closes.
  void Serve() {
    std::string buffer;
    char chunk[4096];
    size_t jobs = 0;
    for (;;) {
      const ssize_t n = ::read(server_fd_, chunk, sizeof chunk);
      if (n <= 0) return;
      buffer.append(chunk, n);
      for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
        const Message request = DecodeMessage(buffer.substr(0, nl));
        buffer.erase(0, nl + 1);
        Message reply = hello_;
        if (const auto* run = std::get_if<RunRequest>(&request)) {
          {
            std::lock_guard lock(log_->mu);
            log_->jobs.push_back(run->job);
          }
          const size_t index = jobs++;
          if (index == script_.die_at_job) {
            dead_ = true;
            ::shutdown(server_fd_, SHUT_RDWR);
            return;
          }
          if (index == script_.interrupt_at_job) {
            interrupted_ = true;  // no reply: the host notices through CheckAlive
            continue;
          }
          reply = script_.run ? script_.run(run->job) : ResultReply{CannedResult(run->job, 1000)};
        }
        const std::string line = EncodeMessage(reply) + "\n";
        if (::write(server_fd_, line.data(), line.size()) != ssize_t(line.size())) return;
      }
    }
  }

  MachineSpec spec_;
  FakeAgentScript script_;
  std::shared_ptr<FakeLog> log_;
  HelloReply hello_;
  std::vector<std::string> argv_{"fake-qemu", "-name", "fake"};
  int server_fd_ = -1;
  std::optional<AgentLink> link_;
  std::thread server_;
  std::atomic<bool> dead_{false}, interrupted_{false};
};

class FakeBackend : public Backend {
 public:
  FakeBackend(FakeAgentScript script, std::shared_ptr<FakeLog> log)
      : script_(std::move(script)), log_(std::move(log)) {}
  std::string Name() const override { return "fake"; }
  std::unique_ptr<Machine> Start(const MachineSpec& spec, std::chrono::seconds) override {
    {
      std::lock_guard lock(log_->mu);
      log_->booted.push_back(spec);
    }
    if (script_.fail_boot) throw MachineStartError("machine " + spec.name + ": fake boot failure");
    return std::make_unique<FakeMachine>(spec, script_, log_);
  }

 private:
  FakeAgentScript script_;
  std::shared_ptr<FakeLog> log_;
};

}  // namespace storbed::testing

#include "backend/child_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace storbed {
namespace bp = boost::process;

namespace {

// Runs in the forked child before exec. PR_SET_PDEATHSIG survives exec, so QEMU gets
// SIGKILL when storbed dies for any reason, SIGKILL included.
struct DieWithParent : bp::extend::handler {
  explicit DieWithParent(pid_t p) : parent(p) {}
  pid_t parent;
  template <typename Executor>
  void on_exec_setup(Executor&) const {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // A process group of its own: a terminal's Ctrl-C goes to storbed alone, which then
    // shuts the guest down in order instead of QEMU dying under a running job.
    ::setpgid(0, 0);
    // The parent may have died between fork() and prctl(): then nobody would kill us.
    if (::getppid() != parent) ::_exit(127);
  }
};

}  // namespace

struct ChildProcess::Impl {
  bp::child child;
  std::string program;
};

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "running";
}

ChildProcess ChildProcess::Start(const std::vector<std::string>& argv,
                                 const std::string& log_path) {
  if (argv.empty()) throw ChildProcessError("cannot start a process from an empty argv");
  boost::filesystem::path exe = argv[0];
  if (argv[0].find('/') == std::string::npos) {
    exe = bp::search_path(argv[0]);
    if (exe.empty()) throw ChildProcessError(argv[0] + ": not found in PATH");
  }
  // Boost opens the log without O_TRUNC; a longer old log would leave its tail behind.
  if (!std::ofstream(log_path, std::ios::trunc)) {
    throw ChildProcessError("cannot create log file " + log_path + " for " + argv[0] + ": " +
                            std::strerror(errno));
  }
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  auto impl = std::make_unique<Impl>();
  impl->program = argv[0];
  try {
    impl->child = bp::child(bp::exe = exe, bp::args = args, bp::std_in < bp::null,
                            (bp::std_out & bp::std_err) > log_path,
                            DieWithParent(::getpid()));
  } catch (const bp::process_error& e) {
    throw ChildProcessError("cannot start " + argv[0] + ": " + e.what());
  }
  return ChildProcess(std::move(impl));
}

ChildProcess::ChildProcess(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChildProcess::ChildProcess(ChildProcess&&) noexcept = default;

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    if (impl_) Terminate(std::chrono::seconds(2));
    impl_ = std::move(o.impl_);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (impl_) Terminate(std::chrono::seconds(2));
}

int ChildProcess::Pid() const { return impl_ ? impl_->child.id() : -1; }

bool ChildProcess::Running() {
  if (!impl_ || !impl_->child.valid()) return false;
  std::error_code ec;
  // ECHILD means someone else reaped it; either way it is gone.
  bool running = impl_->child.running(ec);
  return running && !ec;
}

std::string ChildProcess::ExitDescription() {
  if (Running()) return "running";
  if (!impl_) return "not started";
  return DescribeWaitStatus(impl_->child.native_exit_code());
}

bool ChildProcess::ExitedSuccessfully() {
  if (!impl_ || Running()) return false;
  const int status = impl_->child.native_exit_code();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool ChildProcess::WaitFor(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void ChildProcess::Terminate(std::chrono::milliseconds grace) {
  if (!Running()) return;
  ::kill(Pid(), SIGTERM);
  // A stopped process (SIGSTOP, a hung-QEMU test) acts on SIGTERM only once continued.
  ::kill(Pid(), SIGCONT);
  if (WaitFor(grace)) return;
  ::kill(Pid(), SIGKILL);
  // SIGKILL cannot be ignored, but a process in uninterruptible IO sleep (a stuck host
  // device) only dies when the IO returns; give it a while rather than block forever.
  WaitFor(std::chrono::seconds(10));
}

ChildProcess RunToEnd(const std::vector<std::string>& argv, const std::string& log_path,
                      std::chrono::milliseconds timeout, const std::function<void()>& check) {
  ChildProcess child = ChildProcess::Start(argv, log_path);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (child.Running()) {
    if (check) check();  // ~ChildProcess ends the child on the way out
    if (std::chrono::steady_clock::now() > deadline) {
      child.Terminate(std::chrono::seconds(2));
      throw ChildProcessError(argv[0] + " did not finish within " +
                              std::to_string(timeout.count() / 1000) + " s; it was killed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return child;
}

std::string ProgramPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (access((dir + "/" + program).c_str(), X_OK) == 0) return dir + "/" + program;
  return "";
}

}  // namespace storbed

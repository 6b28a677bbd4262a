// A child process started from an argv vector (no shell) with stdout and stderr going to
// a log file, killed when storbed dies and terminated when its owner goes away.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.h"

namespace storbed {

// The process could not be started; what() names the program and the reason.
class ChildProcessError : public Error {
 public:
  explicit ChildProcessError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// Move-only owner of one child. The child gets PR_SET_PDEATHSIG(SIGKILL), so it dies with
// the thread that started it even on SIGKILL of storbed; start long-lived children
// (QEMU) from a thread that lives as long as they should.
class ChildProcess {
 public:
  // Starts argv[0] (looked up in PATH when it has no '/') with stdin from /dev/null and
  // stdout+stderr into log_path (truncated first). Throws ChildProcessError.
  static ChildProcess Start(const std::vector<std::string>& argv, const std::string& log_path);

  ChildProcess(ChildProcess&&) noexcept;
  ChildProcess& operator=(ChildProcess&&) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Terminate(2 s) if still running.
  ~ChildProcess();

  int Pid() const;
  // Reaps the child if it exited; false once it has.
  bool Running();
  // "running", "exited with status 1" or "killed by signal 9 (Killed)".
  std::string ExitDescription();
  // True once the child has exited by itself with status 0.
  bool ExitedSuccessfully();
  // Waits up to `timeout` for the child to exit by itself; true if it did. Never throws
  // on Ctrl-C: it is used on the way out.
  bool WaitFor(std::chrono::milliseconds timeout);
  // SIGTERM, wait up to `grace`, then SIGKILL and wait for it to be reaped. No-op if
  // already exited.
  void Terminate(std::chrono::milliseconds grace);

 private:
  struct Impl;
  explicit ChildProcess(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Runs argv to its end, stdout and stderr into log_path, running check() (it may throw:
// Ctrl-C) every 50 ms. Past `timeout` the child is killed and reaped and ChildProcessError
// says so; no wait on a child is unbounded. Returns the ended process.
ChildProcess RunToEnd(const std::vector<std::string>& argv, const std::string& log_path,
                      std::chrono::milliseconds timeout, const std::function<void()>& check);

// The path Start would run for `program`: itself when it holds a '/', else the first
// executable of that name in PATH (/usr/bin:/bin when PATH is unset); "" when none is.
std::string ProgramPath(const std::string& program);

// Describes a waitpid() status like ExitDescription does.
std::string DescribeWaitStatus(int status);

}  // namespace storbed

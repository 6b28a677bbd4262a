// The agent's own error types. Every message is a sentence that names what failed
// (file, syscall, port) and, for system calls, the errno text.
#pragma once

#include <stdexcept>
#include <string>

namespace storbed::agent {

// Base of the agent's process-side failures (not IO-job failures: those are JobError).
class AgentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A system call failed. what() is "<what_failed>: <errno text>".
class SystemError : public AgentError {
 public:
  SystemError(const std::string& what_failed, int error_number);
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

// strerror() text for an errno value, safe to call from any thread.
std::string ErrnoText(int error_number);

}  // namespace storbed::agent

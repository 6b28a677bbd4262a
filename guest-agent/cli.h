// The command line of storbed-agent when it is not PID 1.
#pragma once

#include <string>
#include <vector>

#include "errors.h"

namespace storbed::agent {

enum class Mode {
  Standalone,  // --standalone JOB.json [--trace-out FILE] [--heartbeat] [--allow-writes]:
               // run one job on the host, print its result
  ServeStdio,  // --serve-stdio: the protocol on stdin/stdout
  ServePort,   // --serve-port: the protocol on the agent port, not as PID 1 (port_mode.h)
  Version,     // --version
  Help,        // --help / -h
  ManPage,     // --manpage (not in the usage): storbed-agent(1) in roff, for the package
};

struct AgentOptions {
  Mode mode = Mode::Help;
  std::string job_file;   // Standalone only
  std::string trace_out;  // Standalone: --trace-out FILE, a traced job's IOs (io_trace.h)
  bool heartbeat = false;  // Standalone: --heartbeat, a heartbeat line on stdout while working
  bool allow_writes =
      false;  // Standalone, ServeStdio: --allow-writes, a job may write to a block device
  std::string journal_dir =
      "/var/tmp";  // Standalone, ServeStdio: --journal-dir DIR (tunables_keeper.h)
};

// The arguments did not form a command.
class UsageError : public AgentError {
 public:
  using AgentError::AgentError;
};

// Parses argv[1..]. Throws UsageError.
AgentOptions ParseAgentArgs(const std::vector<std::string>& args);

// --help and storbed-agent(1) are both printed from one table of the options, so the page
// cannot drift from the help.
std::string UsageText();
std::string ManPage();

}  // namespace storbed::agent

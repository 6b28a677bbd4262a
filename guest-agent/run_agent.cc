#include "run_agent.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.h"
#include "exit_signals.h"
#include "heartbeat.h"
#include "init_mode.h"
#include "job_file.h"
#include "job_runner.h"
#include "pid1.h"
#include "port_mode.h"
#include "server.h"
#include "target_safety.h"
#include "tunables_keeper.h"
#include "version.h"

namespace storbed::agent {
namespace {

// The joined IOs of a traced job as chunk lines (io_trace.h), written before the result so
// a result on stdout means the file is whole.
void WriteTraceFile(const std::string& path, const std::vector<AgentTracedIo>& ios) {
  std::ofstream out(path, std::ios::trunc);
  for (size_t from = 0; from == 0 || from < ios.size(); from += kTraceChunkIos)
    out << TracedIoChunk(ios, from, kTraceChunkIos).dump() << "\n";
  out.flush();
  if (!out) throw std::runtime_error("cannot write the trace to " + path);
}

// One heartbeat line on stdout in one write(2): stdout and stderr share one file offset
// in storbed's agent log, so a whole line never interleaves with a warning.
void WriteHeartbeatLine(const std::string& line) {
  const std::string text = line + "\n";
  if (::write(STDOUT_FILENO, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("cannot write a heartbeat");  // ends the beats, not the job
}

// On a host: the journal of the queue settings jobs change, kept in `journal_dir`. Before
// any thread starts: a fatal signal puts back the host's queue settings, then kills; and
// what a killed agent left in a journal there is put back first. The keeper is shared with
// the signal thread, which may outlive the caller's frame.
std::shared_ptr<TunablesKeeper> KeepHostTunables(const std::string& journal_dir) {
  const auto keeper = std::make_shared<TunablesKeeper>(journal_dir);
  HandleExitSignals([keeper](int signal) {
    try {
      if (const std::string done = keeper->RestoreForExit(); !done.empty())
        std::fprintf(stderr, "storbed-agent: signal %d: restored the queue settings of %s\n",
                     signal, done.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "storbed-agent: signal %d: %s\n", signal, e.what());
    }
  });
  RestoreLeftoverTunables(journal_dir, std::cerr);
  return keeper;
}

int RunStandalone(const AgentOptions& options) {
  const auto keeper = KeepHostTunables(options.journal_dir);
  JobSpec spec;
  JobResult result;
  {
    // storbed's watchdog (execute/bare_metal_target.cc): a SIGSTOPped or hung agent stops
    // beating and is named within its silence limit. Joined before the result is printed,
    // so the result is the last line.
    std::optional<HeartbeatWriter> heartbeat;
    if (options.heartbeat) heartbeat.emplace(WriteHeartbeatLine, kHeartbeatPeriod);
    spec = LoadJobFile(options.job_file);
    CheckStandaloneTarget(spec, options.allow_writes);
    const UniqueFd held = HoldStandaloneTarget(spec);  // nobody mounts it mid-job
    std::vector<AgentTracedIo> traced;
    result = RunJob(spec, kHostLayer, {.start = {}, .private_mount = true, .ios = &traced},
                    keeper.get());
    if (spec.trace && !options.trace_out.empty()) WriteTraceFile(options.trace_out, traced);
  }
  errno = 0;
  std::cout << nlohmann::json(result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
            << std::endl;
  // A full disk under the log storbed reads: exit 0 there made a cut line look like a
  // result ("parse error at column 32769").
  if (!std::cout)
    throw std::runtime_error(std::string("cannot write the result to stdout: ") +
                             (errno ? std::strerror(errno) : "write failed"));
  return kExitOk;
}

int ServeStdio(const AgentOptions& agent_options) {
  // A host that closes our stdout should give an EPIPE error, not a silent SIGPIPE death.
  ::signal(SIGPIPE, SIG_IGN);
  const auto keeper = KeepHostTunables(agent_options.journal_dir);
  // Dups: the channel owns its fds, and stdin/stdout stay open for the rest of the process.
  LineChannel channel(UniqueFd(::dup(STDIN_FILENO)), UniqueFd(::dup(STDOUT_FILENO)),
                      "the host (stdio)", AgentChannelOptions());
  ServerOptions options;
  options.layer = kHostLayer;
  // The same safety as --standalone: each job's target judged, its tunables journalled.
  options.check_target = [allow_writes = agent_options.allow_writes](const JobSpec& job) {
    CheckStandaloneTarget(job, allow_writes);
  };
  options.hold_target = HoldStandaloneTarget;
  options.tunables = keeper.get();
  Server server(std::move(options));
  server.Serve(channel);
  return kExitOk;
}

int Run(const AgentOptions& options) {
  switch (options.mode) {
    case Mode::Standalone:
      return RunStandalone(options);
    case Mode::ServeStdio:
      return ServeStdio(options);
    case Mode::ServePort:
      return ServeAgentPort();
    case Mode::Version:
      std::cout << "storbed-agent " << kStorbedVersion << " (" << kGitRevision << ")\n";
      return kExitOk;
    case Mode::Help:
      std::cout << UsageText();
      return kExitOk;
    case Mode::ManPage:
      std::cout << ManPage();
      return kExitOk;
  }
  return kExitFailed;
}

int Fail(const std::string& sentence, int code) {
  std::cerr << "storbed-agent: " << sentence << "\n";
  return code;
}

}  // namespace

int RunMain(int argc, char** argv) {
  if (IsPid1()) RunAsInit();
  try {
    return Run(ParseAgentArgs(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const UsageError& e) {
    std::cerr << "storbed-agent: " << e.what() << "\n" << UsageText();
    return kExitBadInput;
  } catch (const JobFileError& e) {
    return Fail(e.what(), kExitBadInput);
  } catch (const JobSpecError& e) {
    return Fail(e.what(), kExitBadInput);
  } catch (const TargetRefusedError& e) {
    return Fail(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return Fail(e.what(), kExitFailed);
  }
}

}  // namespace storbed::agent

#include "cli.h"

#include "protocol.h"

namespace storbed::agent {

AgentOptions ParseAgentArgs(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("no mode given");
  const std::string& mode = args[0];
  if (mode == "--standalone") {
    if (args.size() < 2) throw UsageError("--standalone needs a job file");
    AgentOptions o{Mode::Standalone, args[1], ""};
    for (size_t i = 2; i < args.size(); ++i) {
      if (args[i] != "--trace-out") throw UsageError("unexpected argument '" + args[i] + "'");
      if (i + 1 >= args.size()) throw UsageError("--trace-out needs a file");
      o.trace_out = args[++i];
    }
    return o;
  }
  if (args.size() > 1) throw UsageError("unexpected argument '" + args[1] + "'");
  if (mode == "--serve-stdio") return {Mode::ServeStdio, "", ""};
  if (mode == "--serve-port") return {Mode::ServePort, "", ""};
  if (mode == "--version") return {Mode::Version, "", ""};
  if (mode == "--help" || mode == "-h") return {Mode::Help, "", ""};
  throw UsageError("unknown option '" + mode + "'");
}

std::string UsageText() {
  return "usage: storbed-agent --standalone JOB.json   run one job, print its result as JSON\n"
         "         [--trace-out FILE]                  a traced job's IOs go to FILE (chunk lines)\n"
         "       storbed-agent --serve-stdio           serve the agent protocol on stdin/stdout\n"
         "       storbed-agent --serve-port            serve it on the virtio-serial port, as an\n"
         "                                             ordinary process of a foreign guest\n"
         "       storbed-agent --version\n"
         "As PID 1 (/init of a storbed guest) it ignores its arguments and serves on the\n"
         "virtio-serial port named " +
         std::string(kAgentPortName) + ".\n";
}

}  // namespace storbed::agent

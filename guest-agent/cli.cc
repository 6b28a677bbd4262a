#include "cli.h"

#include <algorithm>
#include <sstream>

#include "protocol.h"
#include "run_agent.h"
#include "version.h"

namespace storbed::agent {

AgentOptions ParseAgentArgs(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("no mode given");
  const std::string& mode = args[0];
  // The host modes: the target safety and the journal of the queue settings they change.
  const bool standalone = mode == "--standalone";
  if (standalone || mode == "--serve-stdio") {
    if (standalone && args.size() < 2) throw UsageError("--standalone needs a job file");
    AgentOptions o{standalone ? Mode::Standalone : Mode::ServeStdio, standalone ? args[1] : "", ""};
    for (size_t i = standalone ? 2 : 1; i < args.size(); ++i) {
      if (args[i] == "--allow-writes") {
        o.allow_writes = true;
        continue;
      }
      if (args[i] == "--journal-dir") {
        if (i + 1 >= args.size()) throw UsageError("--journal-dir needs a directory");
        o.journal_dir = args[++i];
        continue;
      }
      if (standalone && args[i] == "--heartbeat") {
        o.heartbeat = true;
        continue;
      }
      if (!standalone || args[i] != "--trace-out")
        throw UsageError("unexpected argument '" + args[i] + "'");
      if (i + 1 >= args.size()) throw UsageError("--trace-out needs a file");
      o.trace_out = args[++i];
    }
    return o;
  }
  if (args.size() > 1) throw UsageError("unexpected argument '" + args[1] + "'");
  if (mode == "--serve-port") return {Mode::ServePort, "", ""};
  if (mode == "--version") return {Mode::Version, "", ""};
  if (mode == "--help" || mode == "-h") return {Mode::Help, "", ""};
  if (mode == "--manpage") return {Mode::ManPage, "", ""};
  throw UsageError("unknown option '" + mode + "'");
}

namespace {

struct OptionRow {
  const char* option;    // "--standalone"
  const char* argument;  // "JOB.json", or "" for none
  const char* what;
};

// Every option, in the order --help and the man page give them.
constexpr OptionRow kOptions[] = {
    {"--standalone", "JOB.json", "run one job on this host, print its result as JSON"},
    {"--trace-out", "FILE", "with --standalone: a traced job's IOs go to FILE (chunk lines)"},
    {"--heartbeat", "",
     "with --standalone: a heartbeat line on stdout every 2 s until the result (storbed's "
     "watchdog for a hung agent)"},
    {"--allow-writes", "",
     "with --standalone or --serve-stdio: let a job write to a block device (never to one the host "
     "is using: "
     "mounted, held, swap, the root device, opened exclusively)"},
    {"--journal-dir", "DIR",
     "with --standalone or --serve-stdio: where the journal of the queue settings a job changes is "
     "kept until "
     "they are back (default /var/tmp); a run killed with SIGKILL leaves it, and the next run "
     "there, or storbed cleanup --work-dir DIR, puts the settings back"},
    {"--serve-stdio", "",
     "serve the agent protocol on stdin/stdout, on this host: each job's target is judged as "
     "with --standalone"},
    {"--serve-port", "",
     "serve it on the virtio-serial port, as an ordinary process of a foreign guest"},
    {"--version", "", "print the version and the git revision"},
    {"-h, --help", "", "print this help"},
};

std::string PortSentence() {
  return "As PID 1 (/init of a storbed guest) it ignores its arguments and serves on the "
         "virtio-serial port named " +
         std::string(kAgentPortName) + ".";
}

// Roff: a hyphen that is an ASCII hyphen-minus, so a copied option works.
std::string Roff(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '-' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

// Words of `text` in lines of at most 79 columns, every line but the first indented.
std::string Wrapped(const std::string& text, size_t first_column, size_t indent) {
  std::string out, word;
  size_t column = first_column;
  std::istringstream words(text);
  while (words >> word) {
    if (column > indent && column + 1 + word.size() > 79) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (!out.empty() && column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out + "\n";
}

std::string UsageText() {
  constexpr size_t kWhatColumn = 25;
  std::string text =
      "usage: storbed-agent --standalone JOB.json [--trace-out FILE] [--heartbeat]\n"
      "                     [--allow-writes] [--journal-dir DIR]\n"
      "       storbed-agent --serve-stdio [--allow-writes] [--journal-dir DIR]\n"
      "       storbed-agent --serve-port | --version | --help\n";
  for (const OptionRow& row : kOptions) {
    std::string left = std::string("  ") + row.option;
    if (*row.argument) left += std::string(" ") + row.argument;
    left.resize(std::max(left.size() + 2, kWhatColumn), ' ');
    text += left + Wrapped(row.what, left.size(), kWhatColumn);
  }
  return text + Wrapped(PortSentence(), 0, 0);
}

std::string ManPage() {
  std::string page = ".TH STORBED-AGENT 1 \"\" \"storbed " + std::string(kStorbedVersion) +
                     "\" \"User Commands\"\n"
                     ".SH NAME\n"
                     "storbed-agent \\- the IO agent of storbed: a storbed guest's /init, and the "
                     "bare-metal baseline on the host\n"
                     ".SH SYNOPSIS\n"
                     ".B storbed-agent\n\\-\\-standalone \\fIJOB.json\\fR "
                     "[\\-\\-trace\\-out \\fIFILE\\fR] [\\-\\-heartbeat] [\\-\\-allow\\-writes] "
                     "[\\-\\-journal\\-dir \\fIDIR\\fR]\n"
                     ".br\n"
                     ".B storbed-agent\n\\-\\-serve\\-stdio | \\-\\-serve\\-port | "
                     "\\-\\-version | \\-\\-help\n"
                     ".SH DESCRIPTION\n"
                     "storbed(1) runs this static binary: in its guests, where it generates the "
                     "IO of a job and samples the guest's block layer, and on the host, as the "
                     "bare-metal baseline of the same job. " +
                     Roff(PortSentence()) + "\n.SH OPTIONS\n";
  for (const OptionRow& row : kOptions) {
    page += ".TP\n\\fB" + Roff(row.option) + "\\fR";
    if (*row.argument) page += std::string(" \\fI") + Roff(row.argument) + "\\fR";
    page += "\n" + Roff(row.what) + "\n";
  }
  page +=
      ".SH EXIT STATUS\n"
      ".TP\n" +
      std::to_string(kExitOk) +
      "\nthe job ran, or the protocol ended cleanly\n"
      ".TP\n" +
      std::to_string(kExitFailed) +
      "\nthe job or the channel failed\n"
      ".TP\n" +
      std::to_string(kExitBadInput) +
      "\na bad command line or job file, or a target refused: a block device the host is "
      "using, or one a job would write without \\-\\-allow\\-writes\n"
      ".SH SEE ALSO\n"
      "storbed(1), storbed\\-run(1)\n";
  return page;
}

}  // namespace storbed::agent

// The man pages and the bash completion, from the built storbed: every option that a
// command's --help shows is on its rendered man page, and completion completes commands and
// scenario fields in a real bash.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "test_env.h"
#include "test_paths.h"

namespace storbed::testing {
namespace cli_docs_test {  // named, not anonymous: a unity build joins files

// The scratch dir of this file's tests, made (emptied) once.
const std::string& Scratch() {
  static const std::string dir = ScratchDir("cli-docs");
  return dir;
}

std::string Storbed(const std::vector<std::string>& args, const std::string& name) {
  const std::string log = Scratch() + "/" + name + ".log";
  const CliRun r = RunCli(args, log);
  EXPECT_EQ(r.exit, "exited with status 0") << r.log;
  return r.log;
}

// Runs a fixed shell command line (no input from outside the test) and returns its stdout.
std::string Shell(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// The option names a --help text lists: "-h,--help  ..." gives -h and --help.
std::set<std::string> HelpOptions(const std::string& help) {
  std::set<std::string> names;
  std::istringstream lines(help);
  static const std::regex option_line(R"(^\s+(-[^ ]+))");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, option_line)) continue;
    std::istringstream parts(m[1].str());
    for (std::string name; std::getline(parts, name, ',');) names.insert(name);
  }
  return names;
}

TEST(CliDocsTest, EveryManPageShowsEveryOptionItsHelpShows) {
  const std::string dir = Scratch() + "/man";
  Storbed({"manpage", "--dir", dir}, "manpage-dir");
  std::istringstream pages(Storbed({"manpage", "--list"}, "manpage-list"));
  size_t checked = 0;
  for (std::string page; std::getline(pages, page);) {
    if (page.empty() || page.find("storbed") != 0) continue;
    std::vector<std::string> args;  // "storbed-image-build" -> image build --help
    std::istringstream parts(page.substr(std::string("storbed").size()));
    for (std::string part; std::getline(parts, part, '-');)
      if (!part.empty()) args.push_back(part);
    args.push_back("--help");
    const std::set<std::string> options = HelpOptions(Storbed(args, page + "-help"));
    ASSERT_FALSE(options.empty()) << page;
    const std::string shown =
        Shell("MANWIDTH=120 man -l -P cat " + dir + "/" + page + ".1 2>&1");
    ASSERT_NE(shown.find("NAME"), std::string::npos) << page << ":\n" << shown;
    for (const std::string& option : options) {
      const std::regex word("(^|[\\s,])" + option + "([\\s,]|$)");
      EXPECT_TRUE(std::regex_search(shown, word))
          << "man " << page << " lacks " << option << " that --help shows:\n" << shown;
    }
    ++checked;
  }
  // storbed, run, image build/list/gc, scenario explain, report, cleanup, compare,
  // history, history import, gate.
  EXPECT_GE(checked, 10u);
}

// storbed-agent(1), as the package installs it: every option of storbed-agent --help.
TEST(CliDocsTest, TheAgentsManPageShowsEveryOptionItsHelpShows) {
  const std::string page = Scratch() + "/storbed-agent.1";
  Shell(AgentPath() + " --manpage >" + page);
  const std::string help = Shell(AgentPath() + " --help");
  const std::set<std::string> options = HelpOptions(help);
  EXPECT_GE(options.size(), 6u) << help;
  const std::string shown = Shell("MANWIDTH=120 man -l -P cat " + page + " 2>&1");
  ASSERT_NE(shown.find("EXIT STATUS"), std::string::npos) << shown;
  for (const std::string& option : options) {
    const std::regex word("(^|[\\s,])" + option + "([\\s,]|$)");
    EXPECT_TRUE(std::regex_search(shown, word))
        << "man storbed-agent lacks " << option << " that --help shows:\n"
        << shown;
  }
}

TEST(CliDocsTest, ExplainsManPageListsTheScenarioFields) {
  const std::string page = Storbed({"manpage", "storbed-scenario-explain"}, "explain-page");
  EXPECT_NE(page.find(".SH SCENARIO FIELDS"), std::string::npos);
  EXPECT_NE(page.find("job.iodepth"), std::string::npos);
}

std::string Complete(const std::string& script, const std::string& words, int cword) {
  return Shell("bash -c 'source " + script + "; COMP_WORDS=(" + words + "); COMP_CWORD=" +
               std::to_string(cword) + "; _storbed; printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
}

TEST(CliDocsTest, BashCompletesCommandsOptionsAndFieldNames) {
  const std::string script = Scratch() + "/storbed.bash";
  const CliRun r = RunCli({"completion"}, script);
  ASSERT_EQ(r.exit, "exited with status 0");
  EXPECT_EQ(Complete(script, "storbed co", 1), "compare\n");
  EXPECT_EQ(Complete(script, "storbed image b", 2), "build\n");
  EXPECT_NE(Complete(script, "storbed run --until", 2).find("--until-conclusive"),
            std::string::npos);
  const std::string fields = Complete(script, "storbed scenario explain job.io", 3);
  EXPECT_NE(fields.find("job.iodepth\n"), std::string::npos) << fields;
  EXPECT_NE(fields.find("job.ioengine\n"), std::string::npos) << fields;
  EXPECT_EQ(fields.find("machine."), std::string::npos) << fields;
  // A scenario file after run: the bundled ones complete from the source tree.
  const std::string files =
      Shell("cd " + TestSourceDir() + " && bash -c 'source " + script +
            "; COMP_WORDS=(storbed run scenarios/ni); COMP_CWORD=2; _storbed; "
            "printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
  EXPECT_NE(files.find("scenarios/nightly.json"), std::string::npos) << files;
}

// The revision is read when storbed is built, not when the build dir was configured: a build
// after a commit must not stamp manifests and fingerprints with the commit before.
TEST(CliDocsTest, VersionNamesTheRevisionThatWasBuilt) {
  const std::string head =
      Shell("git -C '" + TestSourceDir() + "' rev-parse --short=12 HEAD 2>/dev/null");
  if (head.empty()) GTEST_SKIP() << "the source dir is not a git checkout";
  const std::string revision = "(" + head.substr(0, head.find('\n')) + ")";
  EXPECT_NE(Storbed({"--version"}, "version").find(revision), std::string::npos);
  EXPECT_NE(Shell(AgentPath() + " --version").find(revision), std::string::npos);
}

}  // namespace cli_docs_test
}  // namespace storbed::testing

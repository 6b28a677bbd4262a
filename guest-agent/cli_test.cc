#include "cli.h"

#include <gtest/gtest.h>

namespace storbed::agent {
namespace {

TEST(Cli, ParsesEachMode) {
  const AgentOptions standalone = ParseAgentArgs({"--standalone", "job.json"});
  EXPECT_EQ(standalone.mode, Mode::Standalone);
  EXPECT_EQ(standalone.job_file, "job.json");
  EXPECT_FALSE(standalone.heartbeat);
  EXPECT_FALSE(standalone.allow_writes);
  EXPECT_EQ(standalone.journal_dir, "/var/tmp");
  const AgentOptions beating =
      ParseAgentArgs({"--standalone", "job.json", "--heartbeat", "--trace-out", "t",
                      "--allow-writes", "--journal-dir", "/j"});
  EXPECT_TRUE(beating.heartbeat);
  EXPECT_TRUE(beating.allow_writes);
  EXPECT_EQ(beating.journal_dir, "/j");
  EXPECT_EQ(beating.trace_out, "t");
  EXPECT_EQ(ParseAgentArgs({"--serve-stdio"}).mode, Mode::ServeStdio);
  const AgentOptions serving =
      ParseAgentArgs({"--serve-stdio", "--allow-writes", "--journal-dir", "/j"});
  EXPECT_EQ(serving.mode, Mode::ServeStdio);
  EXPECT_TRUE(serving.allow_writes);
  EXPECT_EQ(serving.journal_dir, "/j");
  EXPECT_EQ(ParseAgentArgs({"--serve-port"}).mode, Mode::ServePort);
  EXPECT_EQ(ParseAgentArgs({"--version"}).mode, Mode::Version);
  EXPECT_EQ(ParseAgentArgs({"--manpage"}).mode, Mode::ManPage);
}

// The page and --help come from one table: each option --help lists is an option of the
// page, hyphens escaped for roff.
TEST(Cli, TheManPageHasEveryOptionOfTheHelp) {
  const std::string page = ManPage();
  EXPECT_EQ(page.rfind(".TH STORBED-AGENT 1", 0), 0u);
  for (const char* option :
       {"--standalone", "--trace-out", "--heartbeat", "--allow-writes", "--journal-dir",
        "--serve-stdio", "--serve-port", "--version", "--help"}) {
    EXPECT_NE(UsageText().find(std::string(" ") + option + " "), std::string::npos) << option;
    std::string roff;
    for (const char c : std::string(option))
      roff += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(page.find(roff), std::string::npos) << option << " not on the page:\n" << page;
  }
}

TEST(Cli, AnythingElseIsAUsageError) {
  EXPECT_THROW(ParseAgentArgs({}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--standalone"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--serve-stdio", "extra"}), UsageError);
  // A job file's options belong to --standalone.
  EXPECT_THROW(ParseAgentArgs({"--serve-stdio", "--heartbeat"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--serve-stdio", "--trace-out", "t"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--serve-stdio", "--journal-dir"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--serve-port", "extra"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--bogus"}), UsageError);
}

}  // namespace
}  // namespace storbed::agent

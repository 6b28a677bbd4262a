#include "cli.h"

#include <gtest/gtest.h>

namespace storbed::agent {
namespace {

TEST(Cli, ParsesEachMode) {
  const AgentOptions standalone = ParseAgentArgs({"--standalone", "job.json"});
  EXPECT_EQ(standalone.mode, Mode::Standalone);
  EXPECT_EQ(standalone.job_file, "job.json");
  EXPECT_EQ(ParseAgentArgs({"--serve-stdio"}).mode, Mode::ServeStdio);
  EXPECT_EQ(ParseAgentArgs({"--serve-port"}).mode, Mode::ServePort);
  EXPECT_EQ(ParseAgentArgs({"--version"}).mode, Mode::Version);
}

TEST(Cli, AnythingElseIsAUsageError) {
  EXPECT_THROW(ParseAgentArgs({}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--standalone"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--serve-stdio", "extra"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--serve-port", "extra"}), UsageError);
  EXPECT_THROW(ParseAgentArgs({"--bogus"}), UsageError);
}

}  // namespace
}  // namespace storbed::agent

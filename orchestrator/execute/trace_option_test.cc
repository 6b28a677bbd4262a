// `storbed run --trace`: every job traced that does not say otherwise, checked as if the
// file had said it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "execute/runner.h"
#include "scenario/scenario.h"

namespace storbed {
namespace {

class TraceOptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("storbed-trace-option-" + std::to_string(getpid()) + ".json");
  }
  void TearDown() override { std::filesystem::remove(path_); }
  RunOptions Options(const std::string& jobs) {
    std::ofstream(path_) << R"({"name": "t", "targets": ["virtio-blk"], "disk": {"size": "16m"},
                               "jobs": [)" + jobs + "]}";
    RunOptions o;
    o.scenario_path = path_;
    o.trace = true;
    return o;
  }
  std::string path_;
};

TEST_F(TraceOptionTest, EveryJobThatDoesNotSayIsTraced) {
  const Scenario s = LoadScenarioFor(Options(R"({"name": "a", "bs": "4k"},
                                                {"name": "b", "bs": "4k", "trace": false})"));
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_TRUE(s.jobs[0].trace);
  EXPECT_FALSE(s.jobs[1].trace);
  RunOptions without = Options(R"({"name": "a", "bs": "4k"})");
  without.trace = false;
  EXPECT_FALSE(LoadScenarioFor(without).jobs[0].trace);
}

TEST_F(TraceOptionTest, ABufferedJobIsRefusedNamingTheOption) {
  try {
    LoadScenarioFor(Options(R"({"name": "a", "bs": "4k", "direct": false})"));
    FAIL() << "a buffered job was traced";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              path_ + " (with --trace): jobs[0].trace: buffered IO reaches the block layer as "
                      "page-cache readahead and writeback, not one request per IO: set direct true");
  }
}

}  // namespace
}  // namespace storbed

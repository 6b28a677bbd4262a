#include "results/results_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "results/manifest.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

class ResultsDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("storbed-results-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

RunRecord Record(const std::string& id, RunStatus status, const std::string& error = "") {
  RunRecord r;
  r.run_id = id;
  r.target = "nvme";
  r.accel = "tcg";
  r.host_name = "lab1";
  r.backend = "libvirt";
  r.status = status;
  r.error = error;
  return r;
}

TEST_F(ResultsDirTest, HostNameAndBackendRoundTripThroughResultsJson) {
  ResultsDir results(dir_.string());
  results.Append(Record("001-a", RunStatus::Ok));
  const auto loaded = LoadResults(dir_.string());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].host_name, "lab1");
  EXPECT_EQ(loaded[0].backend, "libvirt");
}

TEST_F(ResultsDirTest, FailuresComeFromFailedRecordsAndForgetDropsRuns) {
  ResultsDir results(dir_.string());
  results.Append(Record("001-a", RunStatus::Ok));
  results.Append(Record("002-b", RunStatus::Failed, "agent error: EIO"));
  results.Append(Record("003-c", RunStatus::Skipped, "the guest died during 002-b"));
  EXPECT_EQ(results.Failures(), (std::vector<std::string>{"002-b: agent error: EIO"}));
  results.Forget({"002-b", "003-c"});
  EXPECT_TRUE(results.Failures().empty());
  const auto loaded = LoadResults(dir_.string());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].run_id, "001-a");
}

// Regression: two hosts appending at once could lose a record or collide on the temp file.
TEST_F(ResultsDirTest, AppendsAndManifestUpdatesFromSeveralThreadsAreAllKept) {
  ResultsDir results(dir_.string());
  Manifest manifest(results, {});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const std::string id = std::to_string(t) + "-" + std::to_string(i);
        results.Append(Record(id, RunStatus::Ok));
        manifest.SetMachine(id, t);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(LoadResults(dir_.string()).size(), 100u);
  EXPECT_EQ(results.records().size(), 100u);
  EXPECT_EQ(manifest.Snapshot()["machines"].size(), 100u);
  std::ifstream in(dir_ / "manifest.json");
  EXPECT_EQ(nlohmann::json::parse(in)["machines"].size(), 100u);
}

}  // namespace
}  // namespace storbed

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

std::string LoadError(const std::string& dir) {
  try {
    LoadResults(dir);
  } catch (const ResultsFileError& e) {
    return e.what();
  }
  return "(loaded)";
}

// Regression: a corrupt results.json gave `storbed report` exit 1 naming no record or field.
TEST_F(ResultsDirTest, ACorruptRecordIsNamedByIndexAndField) {
  fs::create_directories(dir_);
  const std::string file = (dir_ / "results.json").string();
  nlohmann::json good = Record("001-a", RunStatus::Ok);
  nlohmann::json bad = good;
  bad["run_id"] = "002-b";
  bad["wall_s"] = "slow";
  std::ofstream(file) << nlohmann::json::array({good, bad}).dump();
  EXPECT_EQ(LoadError(dir_.string()),
            file + ": record 1: wall_s (run_id \"002-b\"): type must be number, but is string");
  bad = good;
  bad.erase("status");
  std::ofstream(file) << nlohmann::json::array({bad}).dump();
  EXPECT_EQ(LoadError(dir_.string()), file + ": record 0: status (run_id \"001-a\"): missing");
  bad = good;
  bad["schema_version"] = 99;
  bad["job"] = nlohmann::json::object();  // a newer record's fields may not read at all
  std::ofstream(file) << nlohmann::json::array({bad}).dump();
  EXPECT_EQ(LoadError(dir_.string()),
            file + ": record 0: schema_version (run_id \"001-a\"): a record of schema_version "
                   "99 (a newer storbed); this one reads up to " +
                std::to_string(kResultsSchemaVersion));
  std::ofstream(file) << R"({"run_id": "x"})";
  EXPECT_EQ(LoadError(dir_.string()),
            file + ": not a storbed results file: expected a list of run records");
  std::ofstream(file) << "[1, 2";
  EXPECT_EQ(LoadError(dir_.string()).rfind(file + ": not a storbed results file: ", 0), 0u);
}

// Regression: `storbed report` read timelines_file wherever it pointed (../../etc/passwd).
TEST_F(ResultsDirTest, AFileReferenceOutsideTheResultsDirIsRefused) {
  fs::create_directories(dir_);
  const std::string file = (dir_ / "results.json").string();
  nlohmann::json r = Record("001-a", RunStatus::Ok);
  r["timelines_file"] = "../../../../etc/passwd";
  std::ofstream(file) << nlohmann::json::array({r}).dump();
  EXPECT_EQ(LoadError(dir_.string()),
            file + ": record 0: timelines_file (run_id \"001-a\"): \"../../../../etc/passwd\" "
                   "leaves the results directory");
  r["timelines_file"] = "timelines/001-a.json";
  r["console_log"] = "/etc/shadow";
  std::ofstream(file) << nlohmann::json::array({r}).dump();
  EXPECT_EQ(LoadError(dir_.string()),
            file + ": record 0: console_log (run_id \"001-a\"): \"/etc/shadow\" is absolute: it "
                   "must stay inside the results directory");
}

// Regression: control characters in names were printed raw by `storbed report`.
TEST_F(ResultsDirTest, AControlCharacterInARecordsNameIsRefusedAndShownEscaped) {
  fs::create_directories(dir_);
  const std::string file = (dir_ / "results.json").string();
  nlohmann::json r = Record("001-a", RunStatus::Ok);
  r["run_id"] = "001-\x1b[2Ja";
  std::ofstream(file) << nlohmann::json::array({r}).dump();
  EXPECT_EQ(LoadError(dir_.string()),
            file + ": record 0: run_id (run_id \"001-\\u001b[2Ja\"): holds a control "
                   "character: \"001-\\u001b[2Ja\"");
}

TEST_F(ResultsDirTest, AMissingResultsFileIsNamed) {
  EXPECT_EQ(LoadError(dir_.string()), (dir_ / "results.json").string() +
                                          ": the results file cannot be opened: No such file or "
                                          "directory");
}

TEST_F(ResultsDirTest, UpdateReplacesTheRecordWithItsRunId) {
  ResultsDir results(dir_.string());
  results.Append(Record("001-a", RunStatus::Ok));
  RunRecord later = Record("001-a", RunStatus::Ok);
  later.timelines_file = "timelines/001-a.json";
  results.Update(later);
  const auto loaded = LoadResults(dir_.string());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].timelines_file, "timelines/001-a.json");
}

TEST_F(ResultsDirTest, AFailedWriteLeavesNoTempFileKeepsTheRecordAndTheNextWriteCatchesUp) {
  ResultsDir results(dir_.string());
  results.Append(Record("001-a", RunStatus::Ok));
  fs::rename(dir_ / "results.json", dir_ / "saved.json");
  fs::create_directories(dir_ / "results.json" / "in-the-way");  // rename(2) onto it fails
  results.Append(Record("002-b", RunStatus::Ok));
  EXPECT_EQ(results.size(), 2u);
  EXPECT_NE(results.UnsavedError().find("cannot rename"), std::string::npos)
      << results.UnsavedError();
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  EXPECT_FALSE(results.FlushUnsaved());
  fs::remove_all(dir_ / "results.json");
  EXPECT_TRUE(results.FlushUnsaved());
  EXPECT_EQ(results.UnsavedError(), "");
  EXPECT_EQ(LoadResults(dir_.string()).size(), 2u);
}

}  // namespace
}  // namespace storbed

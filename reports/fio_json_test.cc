#include "reports/fio_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/report_fixture_for_test.h"

namespace storbed {
namespace {

using nlohmann::ordered_json;

class FioJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_.dir = testing_support::FixtureDirName("fio-json");
    input_.records = testing_support::WriteFixtureDir(input_.dir);
    // The fixture's runs measured throughput and latency only; give them IOs and a phase.
    for (RunRecord& r : input_.records) {
      r.result->ios = 4;
      r.result->bytes = 4 * 4096;
      r.result->runtime_s = 0.004;
      r.wall_s = 2.4;
      r.device = "/dev/loop3";
    }
  }
  void TearDown() override { std::filesystem::remove_all(input_.dir); }
  ordered_json Document() const { return ordered_json::parse(RenderFioJson(input_)); }
  ReportInput input_;
};

TEST_F(FioJsonTest, OneJobPerMeasuredRunNamedByItsCellAndRepeat) {
  const ordered_json doc = Document();
  const auto& jobs = doc.at("jobs");
  ASSERT_EQ(jobs.size(), 3u);  // the warm-up is left out
  const std::string job = testing_support::kEvilJob;
  EXPECT_EQ(jobs[0].at("jobname"), "virtio-blk " + job + " #1");
  EXPECT_EQ(jobs[1].at("jobname"), "bare-metal " + job + " #1");
  EXPECT_EQ(jobs[2].at("jobname"), "bare-metal " + job + " #2");
  EXPECT_EQ(jobs[2].at("storbed").at("run_id"), "003-bare-metal-r-r2");
  for (const auto& j : jobs) {
    EXPECT_EQ(j.at("groupid"), 0);
    EXPECT_EQ(j.at("error"), 0);
    EXPECT_EQ(j.at("job options").at("rw"), "read");
    EXPECT_EQ(j.at("job options").at("bs"), "4k");
    EXPECT_EQ(j.at("job options").at("iodepth"), "1");
    EXPECT_EQ(j.at("job options").at("ioengine"), "psync");
    EXPECT_EQ(j.at("job options").at("direct"), "1");
  }
}

// A read job's read object is the record's figures; write and trim are fio's zeros.
TEST_F(FioJsonTest, ReadFiguresAreTheRecordsAndUnusedDirectionsAreZero) {
  const ordered_json doc = Document();
  const auto& job = doc.at("jobs")[2];  // repeat 2: 2000 IOPS, 8 MiB/s
  const auto& read = job.at("read");
  EXPECT_EQ(read.at("iops"), 2000.0);
  EXPECT_EQ(read.at("bw_bytes"), 8u << 20);
  EXPECT_EQ(read.at("bw"), 8192);
  EXPECT_EQ(read.at("io_bytes"), 16384);
  EXPECT_EQ(read.at("io_kbytes"), 16);
  EXPECT_EQ(read.at("runtime"), 4);
  EXPECT_EQ(read.at("total_ios"), 4);
  EXPECT_EQ(job.at("job_runtime"), 4);
  EXPECT_EQ(job.at("elapsed"), 3);  // 2.4 s, rounded up as fio does
  const auto& clat = read.at("clat_ns");
  EXPECT_EQ(clat.at("N"), 4);
  EXPECT_EQ(clat.at("min"), 1000);
  EXPECT_EQ(clat.at("max"), 100500);
  // Repeat 2 has one IO at 1008 ns and three at 100512 ns.
  EXPECT_EQ(clat.at("percentile").at("1.000000"), 1008);
  EXPECT_EQ(clat.at("percentile").at("50.000000"), 100500);  // clamped to max
  EXPECT_EQ(clat.at("bins"), (ordered_json{{"1008", 1}, {"100512", 3}}));
  EXPECT_EQ(read.at("lat_ns").at("mean"), clat.at("mean"));
  EXPECT_FALSE(read.at("lat_ns").contains("bins"));
  for (const char* dir : {"write", "trim"}) {
    const auto& d = job.at(dir);
    EXPECT_EQ(d.at("iops"), 0.0) << dir;
    EXPECT_EQ(d.at("io_bytes"), 0) << dir;
    EXPECT_EQ(d.at("runtime"), 0) << dir;
    EXPECT_EQ(d.at("clat_ns").at("N"), 0) << dir;
    EXPECT_FALSE(d.at("clat_ns").contains("bins")) << dir;
  }
  EXPECT_EQ(job.at("latency_us").at("2"), 25.0);    // 1008 ns
  EXPECT_EQ(job.at("latency_us").at("250"), 75.0);  // 100512 ns
}

TEST_F(FioJsonTest, TopLevelHasFiosKeysAndTheManifestsStartTime) {
  const ordered_json doc = Document();
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"fio version", "timestamp", "timestamp_ms", "time",
                                            "global options", "jobs", "disk_util", "storbed"}));
  EXPECT_EQ(doc.at("fio version"), "storbed-0.1");
  EXPECT_EQ(doc.at("timestamp"), 1714557600);  // 2024-05-01T10:00:00Z
  EXPECT_EQ(doc.at("timestamp_ms"), 1714557600000);
  EXPECT_EQ(doc.at("time"), "Wed May  1 10:00:00 2024");
  // Every job has the same options but its name and filename.
  EXPECT_EQ(doc.at("global options").at("rw"), "read");
  EXPECT_FALSE(doc.at("global options").contains("name"));
  EXPECT_EQ(doc.at("storbed").at("scenario_file"), "scenarios/<quick>.json");
}

// What storbed does not measure is fio's zero, and the document says so.
TEST_F(FioJsonTest, UnmeasuredFieldsAreZeroAndListed) {
  const ordered_json doc = Document();
  const auto& job = doc.at("jobs")[0];
  EXPECT_EQ(job.at("read").at("slat_ns").at("N"), 0);
  EXPECT_EQ(job.at("read").at("iops_stddev"), 0.0);
  EXPECT_EQ(job.at("usr_cpu"), 0.0);
  EXPECT_EQ(job.at("sys_cpu"), 0.0);
  EXPECT_EQ(job.at("iodepth_level").at("1"), 0.0);
  std::string listed;
  for (const auto& line : doc.at("storbed").at("not_measured")) listed += line.get<std::string>();
  for (const char* field : {"slat_ns", "iops_stddev", "usr_cpu", "iodepth_level", "read_ticks"})
    EXPECT_NE(listed.find(field), std::string::npos) << field;
}

TEST_F(FioJsonTest, FailedAndSkippedRunsAreLeftOutAndListed) {
  input_.records[1].status = RunStatus::Failed;
  input_.records[1].error = "guest did not boot";
  input_.records[1].result.reset();
  const ordered_json doc = Document();
  EXPECT_EQ(doc.at("jobs").size(), 2u);
  const auto& left = doc.at("storbed").at("runs_left_out");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].at("run_id"), "001-virtio-blk-r");
  EXPECT_EQ(left[0].at("status"), "failed");
  EXPECT_EQ(left[0].at("error"), "guest did not boot");
}

// A mixed run's IOs split by its read and write counts; its latency holds both directions,
// so neither direction claims it.
TEST_F(FioJsonTest, AMixedRunSplitsItsIosAndLeavesPerDirectionLatencyZero) {
  RunRecord& r = input_.records[2];
  r.job.rw = Direction::Mixed;
  r.job.read_pct = 75;
  r.result->reads = 3;
  r.result->writes = 1;
  const ordered_json doc = Document();
  const auto& job = doc.at("jobs")[1];
  EXPECT_EQ(job.at("job options").at("rwmixread"), "75");
  EXPECT_EQ(job.at("read").at("total_ios"), 3);
  EXPECT_EQ(job.at("write").at("total_ios"), 1);
  EXPECT_EQ(job.at("read").at("io_bytes"), 3 * 4096);
  EXPECT_EQ(job.at("read").at("iops"), 750.0);
  EXPECT_EQ(job.at("write").at("iops"), 250.0);
  EXPECT_EQ(job.at("read").at("clat_ns").at("N"), 0);
  EXPECT_EQ(job.at("write").at("clat_ns").at("N"), 0);
  EXPECT_GT(
      job.at("latency_ns").at("1000").get<double>() + job.at("latency_us").at("2").get<double>(),
      0.0);
  std::string mapping;
  for (const auto& line : doc.at("storbed").at("mapping")) mapping += line.get<std::string>();
  EXPECT_NE(mapping.find("rw mixed"), std::string::npos);
}

TEST_F(FioJsonTest, DiskUtilIsEachRunsDiskstatsDelta) {
  BlockStats& b = input_.records[1].result->block;
  b.available = true;
  b.device = "vda";
  b.layer = "guest block layer";
  b.interval_s = 2;
  b.reads = 40;
  b.read_merges = 3;
  b.has_rw_ms = true;
  b.rw_ms = 120;
  b.avg_queue_depth = 0.25;
  b.utilization = 0.5;
  const ordered_json doc = Document();
  ASSERT_EQ(doc.at("disk_util").size(), 1u);  // the other runs have no block delta
  const auto& d = doc.at("disk_util")[0];
  EXPECT_EQ(d.at("name"), "vda");
  EXPECT_EQ(d.at("read_ios"), 40);
  EXPECT_EQ(d.at("write_ios"), 0);
  EXPECT_EQ(d.at("read_merges"), 3);
  EXPECT_EQ(d.at("read_ticks"), 120);  // no writes: the summed ticks are the reads'
  EXPECT_EQ(d.at("write_ticks"), 0);
  EXPECT_EQ(d.at("in_queue"), 500);  // depth 0.25 over 2000 ms
  EXPECT_EQ(d.at("util"), 50.0);
  EXPECT_EQ(d.at("storbed_job"), doc.at("jobs")[0].at("jobname"));
}

TEST_F(FioJsonTest, WithoutAManifestThereIsNoTimestampAndTheNoteSaysWhy) {
  std::filesystem::remove(input_.dir + "/manifest.json");
  const ordered_json doc = Document();
  EXPECT_EQ(doc.at("timestamp"), 0);
  EXPECT_EQ(doc.at("time"), "");
  EXPECT_EQ(doc.at("jobs").size(), 3u);
  std::string listed;
  for (const auto& line : doc.at("storbed").at("not_measured")) listed += line.get<std::string>();
  EXPECT_NE(listed.find("no started_at"), std::string::npos);
}

TEST_F(FioJsonTest, AMalformedManifestIsAnErrorNamingTheFile) {
  std::ofstream(input_.dir + "/manifest.json") << "{\"started_at\": ";
  try {
    RenderFioJson(input_);
    FAIL() << "a truncated manifest was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(input_.dir + "/manifest.json: not JSON: ", 0), 0u)
        << e.what();
  }
  std::ofstream(input_.dir + "/manifest.json") << "[1, 2]";
  EXPECT_THROW(RenderFioJson(input_), std::invalid_argument);
}

TEST_F(FioJsonTest, NoRecordsGiveADocumentWithNoJobs) {
  input_.records.clear();
  const ordered_json doc = Document();
  EXPECT_TRUE(doc.at("jobs").empty());
  EXPECT_TRUE(doc.at("global options").empty());
}

}  // namespace
}  // namespace storbed

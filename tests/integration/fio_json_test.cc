// fio-json for real: a small bare-metal run writes fio.json beside its other results,
// `storbed report --fio-json FILE` writes the same document again, and the tools that read
// fio's json+ output read it: fio's own fio_jsonplus_clat2csv (Debian's fio package) turns
// its bins into CSV and validates them, and the keys fio-plot reads are all there.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backend/child_process.h"
#include "test_env.h"

namespace storbed {
namespace fio_json_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

// The keys fio-plot (fio_plot/fiolib/jsonparsing*.py) reads from every job, as Python
// reads them: a missing one is a KeyError, iodepth and numjobs go through int().
constexpr const char* kFioPlotReader = R"(
import json, sys
doc = json.load(open(sys.argv[1]))
doc["fio version"]
for job in doc["jobs"]:
    options = {**job["job options"], **doc.get("global options", {})}
    int(options["iodepth"]); int(options["numjobs"]); options["bs"]; options["rw"]
    for mode in ("read", "write"):
        d = job[mode]
        d["bw"], d["iops"], d["iops_stddev"], d["lat_ns"]["mean"], d["lat_ns"]["stddev"]
    job["latency_ms"], job["latency_us"], job["latency_ns"], job["usr_cpu"], job["sys_cpu"]
    mode = "write" if options["rw"] in ("write", "randwrite") else "read"
    job[mode]["clat_ns"]["percentile"]["99.000000"]
print("fio-plot keys ok:", len(doc["jobs"]), "jobs")
)";

struct ToolRun {
  std::string exit, log;
};

ToolRun RunTool(const std::vector<std::string>& argv, const std::string& log) {
  ChildProcess child = ChildProcess::Start(argv, log);
  EXPECT_TRUE(child.WaitFor(std::chrono::minutes(2))) << argv[0] << " did not end";
  return {child.ExitDescription(), testing::Slurp(log)};
}

class FioJsonCliTest : public ::testing::Test {
 protected:
  // One bare-metal run per direction: a random read at depth 4 and a sequential write.
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::ScratchDir("fio-json"));
    std::ofstream(*dir_ + "/f.json") << R"({"name": "f", "targets": ["bare-metal"],
        "disk": {"size": "8m"},
        "jobs": [{"name": "r", "pattern": "random", "ioengine": "io_uring", "iodepth": 4,
                  "io_size": "1m"},
                 {"name": "w", "rw": "write", "io_size": "512k"}]})";
    const testing::CliRun run =
        testing::RunCli({"run", *dir_ + "/f.json", "--out", *dir_ + "/out", "--work-dir", *dir_},
                        *dir_ + "/run.log");
    ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static nlohmann::json Json(const std::string& path) {
    return nlohmann::json::parse(testing::Slurp(path));
  }
  static std::string* dir_;
};
std::string* FioJsonCliTest::dir_ = nullptr;

TEST_F(FioJsonCliTest, TheRunWritesFioJsonWhoseJobsCarryTheRecordsFigures) {
  const nlohmann::json doc = Json(*dir_ + "/out/fio.json");
  const nlohmann::json records = Json(*dir_ + "/out/results.json");
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(doc.at("jobs").size(), 2u) << doc.dump(2).substr(0, 2000);
  for (size_t i = 0; i < 2; ++i) {
    const auto& job = doc["jobs"][i];
    const auto& result = records[i]["result"];
    const bool read = records[i]["job"]["rw"] == "read";
    const auto& used = job.at(read ? "read" : "write");
    const auto& unused = job.at(read ? "write" : "read");
    EXPECT_EQ(job.at("storbed").at("run_id"), records[i]["run_id"]);
    EXPECT_GT(used.at("iops").get<double>(), 0.0);
    EXPECT_EQ(used.at("iops"), result["iops"]);
    EXPECT_EQ(used.at("total_ios"), result["ios"]);
    EXPECT_EQ(used.at("io_bytes"), result["bytes"]);
    EXPECT_EQ(used.at("clat_ns").at("N"), result["latency"]["count"]);
    uint64_t binned = 0;
    for (const auto& [ns, count] : used.at("clat_ns").at("bins").items())
      binned += count.get<uint64_t>();
    EXPECT_EQ(binned, result["ios"].get<uint64_t>());
    // The histogram's percentiles are the agent's own where both have them.
    const auto& percentile = used.at("clat_ns").at("percentile");
    for (const auto& [key, field] : {std::pair{"50.000000", "p50_us"},
                                     {"90.000000", "p90_us"},
                                     {"99.000000", "p99_us"},
                                     {"99.900000", "p999_us"}})
      EXPECT_EQ(percentile.at(key).get<int64_t>(),
                std::llround(result["latency"][field].get<double>() * 1000))
          << key;
    EXPECT_EQ(unused.at("iops"), 0.0);
    EXPECT_EQ(unused.at("total_ios"), 0);
    EXPECT_FALSE(unused.at("clat_ns").contains("bins"));
  }
  EXPECT_EQ(doc["jobs"][0]["job options"]["rw"], "randread");
  EXPECT_EQ(doc["jobs"][0]["job options"]["iodepth"], "4");
  EXPECT_EQ(doc["jobs"][1]["job options"]["rw"], "write");
  // Bare metal: the agent's diskstats delta of the loop device, one entry per run.
  ASSERT_EQ(doc.at("disk_util").size(), 2u);
  EXPECT_EQ(doc["disk_util"][0]["name"], records[0]["result"]["block"]["device"]);
  EXPECT_GE(doc["disk_util"][0]["read_ios"].get<uint64_t>(), 1u);
  EXPECT_GE(doc["disk_util"][1]["write_ios"].get<uint64_t>(), 1u);
}

TEST_F(FioJsonCliTest, ReportWritesTheSameDocumentAndPrintsItWithOutputFormat) {
  const std::string file = *dir_ + "/again.json";
  const testing::CliRun written =
      testing::RunCli({"report", *dir_ + "/out", "--fio-json", file}, *dir_ + "/report.log");
  ASSERT_EQ(written.exit, "exited with status 0") << written.log;
  EXPECT_EQ(testing::Slurp(file), testing::Slurp(*dir_ + "/out/fio.json"));
  const testing::CliRun printed = testing::RunCli(
      {"report", *dir_ + "/out", "--output-format", "fio-json"}, *dir_ + "/print.log");
  ASSERT_EQ(printed.exit, "exited with status 0") << printed.log;
  EXPECT_EQ(printed.log, testing::Slurp(file));
}

TEST_F(FioJsonCliTest, FiosOwnClat2csvReadsTheBinsAndValidatesThem) {
  const std::string tool = "/usr/bin/fio_jsonplus_clat2csv";
  if (!fs::exists(tool)) GTEST_SKIP() << tool << " is missing (Debian package fio)";
  const std::string csv = *dir_ + "/clat.csv";
  const ToolRun made =
      RunTool({"python3", tool, *dir_ + "/out/fio.json", csv}, *dir_ + "/clat2csv.log");
  ASSERT_EQ(made.exit, "exited with status 0") << made.log;
  for (const char* job : {"/clat_job0.csv", "/clat_job1.csv"}) {
    const std::string text = testing::Slurp(*dir_ + job);
    ASSERT_EQ(text.rfind("nsec, read_slat_ns_count,", 0), 0u) << job << ":\n" << text;
    EXPECT_GT(testing::Occurrences(text, "\n"), 2u) << job;  // header and bins
  }
  const ToolRun checked = RunTool({"python3", tool, *dir_ + "/out/fio.json", csv, "--validate"},
                                  *dir_ + "/validate.log");
  ASSERT_EQ(checked.exit, "exited with status 0") << checked.log;
  EXPECT_EQ(testing::Occurrences(checked.log, "validated"), 2u) << checked.log;
}

TEST_F(FioJsonCliTest, EveryKeyFioPlotReadsIsThere) {
  const ToolRun run =
      RunTool({"python3", "-c", kFioPlotReader, *dir_ + "/out/fio.json"}, *dir_ + "/fio-plot.log");
  EXPECT_EQ(run.exit, "exited with status 0") << run.log;
  EXPECT_NE(run.log.find("fio-plot keys ok: 2 jobs"), std::string::npos) << run.log;
}

TEST_F(FioJsonCliTest, AnUnwritableFioJsonFileIsAnErrorNamingIt) {
  const testing::CliRun run = testing::RunCli(
      {"report", *dir_ + "/out", "--fio-json", "/proc/no-such-dir/f.json"}, *dir_ + "/bad.log");
  EXPECT_EQ(run.exit, "exited with status 1") << run.log;
  EXPECT_NE(run.log.find("cannot write the fio-json report /proc/no-such-dir/f.json"),
            std::string::npos)
      << run.log;
}

}  // namespace fio_json_test
}  // namespace storbed

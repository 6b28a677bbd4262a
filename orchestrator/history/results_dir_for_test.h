// Test support: a results directory as `storbed run` leaves one (results.json and
// manifest.json) of a few bare-metal repeats of one cell, for the history, gate and exit-code
// tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "results/run_record.h"

namespace storbed {

struct FakeResults {
  std::string session = "";     // the manifest's "session"
  std::string started_at = "";  // UTC, ISO 8601
  double iops = 1000;      // the i-th repeat (from 1) measures iops + i
  int runs = 3;
  std::string cpu = "EPYC";
  std::string load_avg1 = "";  // the environment's load.avg1; none when empty
  std::string host = "";       // the manifest's host.hostname; none when empty
  std::string scenario = "s";
};

// Writes `results` into `dir`, made if missing.
inline void WriteFakeResults(const std::filesystem::path& dir, const FakeResults& results) {
  std::filesystem::create_directories(dir);
  nlohmann::json records = nlohmann::json::array();
  for (int i = 1; i <= results.runs; ++i) {
    RunRecord r;
    r.run_id = "00" + std::to_string(i) + "-bare-metal-r";
    r.target = "bare-metal";
    r.job.name = "r";
    r.params = {{"repeat", i}, {"warmup", false}};
    JobResult res;
    res.iops = results.iops + i;
    r.result = res;
    records.push_back(r);
  }
  std::ofstream(dir / "results.json") << records.dump();
  nlohmann::json environment = {{"cpu.model", results.cpu}, {"storbed.git_revision", "abc"}};
  if (!results.load_avg1.empty()) environment["load.avg1"] = results.load_avg1;
  nlohmann::json manifest = {{"session", results.session},
                             {"started_at", results.started_at},
                             {"scenario", {{"name", results.scenario}}},
                             {"environment", environment}};
  if (!results.host.empty()) manifest["host"] = {{"hostname", results.host}};
  std::ofstream(dir / "manifest.json") << manifest.dump();
}

}  // namespace storbed

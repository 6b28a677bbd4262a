#include "reports/compare_input.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "file_read.h"
#include "results/results_dir.h"
#include "strict_json.h"

namespace storbed {

nlohmann::json LoadCompareManifest(const std::string& dir, const std::string& side) {
  const std::optional<std::string> text = TryReadFile(dir + "/manifest.json");
  if (!text)
    throw std::invalid_argument(side + " " + dir + ": not a results directory (no manifest.json)");
  try {
    return ParseJson(*text);
  } catch (const std::exception& e) {
    throw std::invalid_argument(side + " " + dir + "/manifest.json: " + e.what());
  }
}

std::vector<RunRecord> LoadCompareSide(const std::string& dir, const std::string& side) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw std::invalid_argument(side + " " + dir + ": not a directory");
  if (!fs::exists(fs::path(dir) / "results.json"))
    throw std::invalid_argument(side + " " + dir + ": not a results directory (no results.json)");
  std::vector<RunRecord> records;
  try {
    records = LoadResults(dir);
  } catch (const std::exception& e) {
    throw std::invalid_argument(side + ": " + e.what());
  }
  if (records.empty()) throw std::invalid_argument(side + " " + dir + "/results.json: no runs");
  return records;
}

CompareReport CompareWithBase(const std::string& base_dir, const std::string& cand_dir,
                              const std::vector<RunRecord>& cand) {
  CompareSides sides{base_dir, cand_dir, LoadCompareSide(base_dir, "BASE"), cand};
  if (std::all_of(sides.base.begin(), sides.base.end(),
                  [](const RunRecord& r) { return r.status == RunStatus::Warmup; }))
    throw std::invalid_argument("--compare " + base_dir + ": no measured runs, only warm-ups");
  CompareReport report = Compare(sides, CompareOptions{});
  namespace fs = std::filesystem;
  if (fs::exists(fs::path(base_dir) / "manifest.json") &&
      fs::exists(fs::path(cand_dir) / "manifest.json")) {
    report.differences = DiffEnvironments(LoadCompareManifest(base_dir, "BASE"),
                                          LoadCompareManifest(cand_dir, "CAND"), {});
    report.comparable = std::none_of(report.differences.begin(), report.differences.end(), Blocks);
  }
  return report;
}

}  // namespace storbed

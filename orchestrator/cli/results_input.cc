#include "cli/results_input.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "results/results_dir.h"

namespace storbed {

nlohmann::json LoadManifestOf(const std::string& dir, const std::string& side) {
  std::ifstream in(dir + "/manifest.json");
  if (!in)
    throw std::invalid_argument(side + " " + dir + ": not a results directory (no manifest.json)");
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::invalid_argument(side + " " + dir + "/manifest.json: " + e.what());
  }
}

std::vector<RunRecord> LoadRecordsOf(const std::string& dir, const std::string& side) {
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

}  // namespace storbed

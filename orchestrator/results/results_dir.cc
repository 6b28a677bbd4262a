#include "results/results_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "input_file.h"
#include "quoted_value.h"
#include "results/record_check.h"
#include "strict_json.h"

namespace storbed {

void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::string& what) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      // A full disk must not leave a half-written temp file behind.
      unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + (what.empty() ? "" : what + " ") + path + ": " +
                               why);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + why);
  }
}

ResultsDir::ResultsDir(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  std::filesystem::create_directories(path_, ec);
  if (ec) throw std::runtime_error("cannot create results directory " + path_ + ": " + ec.message());
}

void ResultsDir::WriteManifest(const nlohmann::json& manifest) {
  std::lock_guard lock(mu_);
  manifest_behind_ = manifest.dump(2) + "\n";
  WritePendingLocked();
}

void ResultsDir::WriteResultsLocked() {
  results_behind_ = true;
  WritePendingLocked();
}

void ResultsDir::WritePendingLocked() {
  try {
    if (results_behind_) {
      WriteFileAtomically(File("results.json"), nlohmann::json(records_).dump(2) + "\n");
      results_behind_ = false;
    }
    if (!manifest_behind_.empty()) {
      WriteFileAtomically(File("manifest.json"), manifest_behind_);
      manifest_behind_.clear();
    }
    unsaved_error_.clear();
  } catch (const std::exception& e) {
    unsaved_error_ = e.what();
  }
}

void ResultsDir::Append(const RunRecord& record) {
  std::lock_guard lock(mu_);
  records_.push_back(record);
  WriteResultsLocked();
}

void ResultsDir::Update(const RunRecord& record) {
  std::lock_guard lock(mu_);
  for (auto& r : records_)
    if (r.run_id == record.run_id) r = record;
  WriteResultsLocked();
}

void ResultsDir::Forget(const std::vector<std::string>& run_ids) {
  std::lock_guard lock(mu_);
  const auto gone = [&](const RunRecord& r) {
    return std::find(run_ids.begin(), run_ids.end(), r.run_id) != run_ids.end();
  };
  const auto before = records_.size();
  records_.erase(std::remove_if(records_.begin(), records_.end(), gone), records_.end());
  if (records_.size() != before) WriteResultsLocked();
}

std::string ResultsDir::UnsavedError() const {
  std::lock_guard lock(mu_);
  return unsaved_error_;
}

bool ResultsDir::FlushUnsaved() {
  std::lock_guard lock(mu_);
  WritePendingLocked();
  return unsaved_error_.empty();
}

size_t ResultsDir::size() const {
  std::lock_guard lock(mu_);
  return records_.size();
}

std::vector<RunRecord> ResultsDir::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

std::vector<std::string> ResultsDir::Failures() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& r : records_)
    if (r.status == RunStatus::Failed) out.push_back(r.run_id + ": " + r.error);
  return out;
}

std::vector<RunRecord> LoadResults(const std::string& dir) {
  const std::string file = dir + "/results.json";
  std::string text;
  try {
    text = ReadInputFile(file, "results file", kMaxResultsFileBytes);
  } catch (const InputFileError& e) {
    throw ResultsFileError(e.what());
  }
  return ParseResults(text, file);
}

std::vector<RunRecord> ParseResults(const std::string& text, const std::string& file) {
  nlohmann::json doc;
  try {
    doc = ParseJson(text);
  } catch (const std::exception& e) {
    throw ResultsFileError(file + ": not a storbed results file: " + WithoutJsonTag(e.what()));
  }
  if (!doc.is_array())
    throw ResultsFileError(file + ": not a storbed results file: expected a list of run records");
  std::vector<RunRecord> out;
  std::map<std::string, size_t> first_of;  // run id -> its record
  for (size_t i = 0; i < doc.size(); ++i) {
    const std::string problem = RecordProblem(doc[i]);
    if (!problem.empty())
      throw ResultsFileError(file + ": record " + std::to_string(i) + ": " + problem);
    out.push_back(doc[i].get<RunRecord>());
    // compare pairs runs by id: a second record of one id would count twice.
    const auto [at, added] = first_of.emplace(out.back().run_id, i);
    if (!added)
      throw ResultsFileError(file + ": record " + std::to_string(i) + ": run_id " +
                             QuoteValue(out.back().run_id) + " is also record " +
                             std::to_string(at->second) + "'s; each run has one record");
  }
  return out;
}

}  // namespace storbed

// One directory per invocation: manifest.json, results.json (rewritten whole after
// every run, atomically, so a crash loses only the run in flight) and per-machine
// folders with console logs. Thread-safe: hosts that run in parallel share one.
//
// A write that fails (a full disk) loses nothing: the records and the manifest stay in
// memory, every later write tries again, and UnsavedError() says what is not on disk.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "error.h"
#include "results/run_record.h"

namespace storbed {

class ResultsDir {
 public:
  // Creates `path` (and parents). Throws std::runtime_error naming the path.
  explicit ResultsDir(std::string path);

  const std::string& path() const { return path_; }
  std::string File(const std::string& relative) const { return path_ + "/" + relative; }

  void WriteManifest(const nlohmann::json& manifest);
  // Adds the record and rewrites results.json.
  void Append(const RunRecord& record);
  // Replaces the record of record.run_id (Append first, then what the run wrote beside it)
  // and rewrites results.json.
  void Update(const RunRecord& record);
  // Drops the records of `run_ids` (a group moving to another host reruns them) and
  // rewrites results.json.
  void Forget(const std::vector<std::string>& run_ids);
  std::vector<RunRecord> records() const;
  size_t size() const;
  // "RUN_ID: reason" for every failed run, in record order.
  std::vector<std::string> Failures() const;
  // Why results.json or manifest.json on disk is behind what is in memory; "" when not.
  std::string UnsavedError() const;
  // Tries the failed writes again; true when everything is on disk now.
  bool FlushUnsaved();

 private:
  void WriteResultsLocked();
  void WritePendingLocked();
  std::string path_;
  mutable std::mutex mu_;  // everything below and every file write (temp names are per process)
  std::vector<RunRecord> records_;
  bool results_behind_ = false;
  std::string manifest_behind_;  // manifest text not yet on disk
  std::string unsaved_error_;
};

// Writes `text` to `path` through a temp file and rename(2). `what` names the file in
// errors ("cannot write the html report PATH: ..."); the path alone when empty.
void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::string& what = "");

// A results.json that is missing, not a regular file, or not storbed's: bad input (exit 2).
class ResultsFileError : public Error {
 public:
  explicit ResultsFileError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

// results.json of a long matrix is a few MiB; far more is not ours.
inline constexpr uint64_t kMaxResultsFileBytes = 512ull << 20;

// Loads results.json of a results directory. Throws ResultsFileError naming the file and,
// for a bad record, its index and field ("FILE: record 3: timelines_file: ...").
std::vector<RunRecord> LoadResults(const std::string& dir);
// The same from the file's text; `file` only names it in messages.
std::vector<RunRecord> ParseResults(const std::string& text, const std::string& file);

}  // namespace storbed

// manifest.json as the threads of one run share it: every change is applied and the
// file rewritten under one lock, so two hosts' machine entries never overwrite each other.
#pragma once

#include <functional>
#include <mutex>

#include <nlohmann/json.hpp>

#include "run/results_dir.h"

namespace storbed {

class Manifest {
 public:
  // Writes `initial` at once. Throws what ResultsDir::WriteManifest throws.
  Manifest(const ResultsDir& dir, nlohmann::json initial);
  // Applies `change` to the document and rewrites manifest.json.
  void Update(const std::function<void(nlohmann::json&)>& change);
  nlohmann::json Snapshot() const;

 private:
  const ResultsDir& dir_;
  mutable std::mutex mu_;
  nlohmann::json doc_;
};

}  // namespace storbed

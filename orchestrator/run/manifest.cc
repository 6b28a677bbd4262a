#include "run/manifest.h"

#include "run/run_record.h"

namespace storbed {

Manifest::Manifest(const ResultsDir& dir, nlohmann::json initial)
    : dir_(dir), doc_(std::move(initial)) {
  doc_["schema_version"] = kResultsSchemaVersion;
  dir_.WriteManifest(doc_);
}

void Manifest::Update(const std::function<void(nlohmann::json&)>& change) {
  std::lock_guard lock(mu_);
  change(doc_);
  dir_.WriteManifest(doc_);
}

nlohmann::json Manifest::Snapshot() const {
  std::lock_guard lock(mu_);
  return doc_;
}

}  // namespace storbed

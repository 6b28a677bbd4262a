// Reading a results directory for the commands that judge it (compare, gate, history
// import): each failure is std::invalid_argument naming the side, the directory and what
// is wrong, which the commands turn into exit 2.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/run_record.h"

namespace storbed {

// DIR/manifest.json; `side` ("BASE", "RESULTS") starts the message.
nlohmann::json LoadManifestOf(const std::string& dir, const std::string& side);

// DIR/results.json's records: not empty, of a schema this storbed reads.
std::vector<RunRecord> LoadRecordsOf(const std::string& dir, const std::string& side);

}  // namespace storbed

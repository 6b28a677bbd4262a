// Reading the sides of a comparison: a results directory's records and its manifest, with
// errors that name the side, the directory and what is missing. `storbed compare` and the
// reports' --compare BASE read through here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/compare.h"
#include "results/run_record.h"

namespace storbed {

// `dir`'s results.json records. Throws std::invalid_argument starting with `side` ("BASE")
// when dir is not a directory, has no results.json, cannot be read or holds no runs.
std::vector<RunRecord> LoadCompareSide(const std::string& dir, const std::string& side);

// `dir`'s manifest.json. Throws std::invalid_argument starting with `side` when it is
// missing or malformed.
nlohmann::json LoadCompareManifest(const std::string& dir, const std::string& side);

// `cand_dir` (its `cand` records, already loaded) against the results directory
// `base_dir`: Compare() with default options, and the environment gate of the two
// manifests, left unchecked (comparable unset) when either has none. Throws what
// LoadCompareSide throws for BASE, and std::invalid_argument when BASE has only warm-ups.
CompareReport CompareWithBase(const std::string& base_dir, const std::string& cand_dir,
                              const std::vector<RunRecord>& cand);

}  // namespace storbed

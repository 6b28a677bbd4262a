// A results directory in fio's --output-format=json+ schema, so tools that read fio's
// output (fio-plot, fio's own fio_jsonplus_clat2csv) read storbed results unchanged: one
// fio job per measured run (warm-ups, failed and skipped runs left out), its read, write
// and trim objects, clat_ns percentiles and bins from the run's latency histogram, and
// disk_util from the run's diskstats. Fields storbed does not measure are zeros, as fio
// writes them for a direction a job did not use, and the top-level "storbed" object lists
// them (docs/fio-json.md has the mapping field by field).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/report_formats.h"
#include "results/run_record.h"

namespace storbed {

// The document for `records` (any order; warm-ups included or not) and the directory's
// manifest.json (an empty object when there is none: then no timestamp).
nlohmann::ordered_json FioJsonDocument(const std::vector<RunRecord>& records,
                                       const nlohmann::json& manifest);

// FioJsonDocument of input.records and input.dir's manifest.json, as text. Throws
// std::invalid_argument naming the file when manifest.json exists but is not a JSON object.
std::string RenderFioJson(const ReportInput& input);

}  // namespace storbed

// What is wrong with one results.json record, field by field, so a corrupt file is named
// by record and field instead of by a bare JSON type error; and the rule that its file
// references stay inside the results directory (`storbed report` reads them).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace storbed {

// "" when `record` reads as a RunRecord; else "FIELD: reason" (run_id included when known).
std::string RecordProblem(const nlohmann::json& record);

// "" when `path` is relative, without ".." parts or control characters; else the reason.
std::string InsideDirProblem(const std::string& path);

}  // namespace storbed

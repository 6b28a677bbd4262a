// `storbed run --fio job.fio`: a fio job file ([global] and one section per job,
// key=value, ; and # comments) mapped onto a scenario document, then validated like
// any scenario. Options storbed cannot honour are errors naming each with its line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.h"

namespace storbed {

struct FioImport {
  nlohmann::json document;         // the scenario it maps to (what `scenario explain` documents)
  Scenario scenario;
  std::vector<std::string> notes;  // "job.fio:3: option 'filename' ignored: ..."
};

// "virtio-blk,nvme" -> {"virtio-blk", "nvme"}; "" -> all three. Throws ScenarioError.
std::vector<std::string> ParseFioTargets(const std::string& list);

// Maps fio job text; `path` names it in messages. Throws ScenarioError: one line listing
// every unsupported option ("job.fio:7: option 'ramp_time' is not supported by storbed; ..."),
// or "job.fio:LINE: option: reason" for a value it cannot map, or a scenario of more than
// `max_runs` runs (sections x targets).
FioImport ImportFio(const std::string& text, const std::string& path,
                    const std::vector<std::string>& targets, uint64_t max_runs = kDefaultMaxRuns);
FioImport ImportFioFile(const std::string& path, const std::vector<std::string>& targets,
                        uint64_t max_runs = kDefaultMaxRuns);

}  // namespace storbed

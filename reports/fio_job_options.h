// A storbed job as fio's "job options": the options a fio job file would set to run it,
// by fio's names, every value a string as fio echoes them ("4k", "1"). Options left at a
// default storbed and fio share are left out, as fio leaves out what a job file omits.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job.h"

namespace storbed {

struct FioJobOptions {
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  // What fio cannot say exactly about this job ("pattern gappy 2:1 has no fio rw; ...").
  std::vector<std::string> notes;
};

// `device` is the path the agent opened (fio's filename); "" leaves filename out.
FioJobOptions FioJobOptionsOf(const JobSpec& job, const std::string& device);

// fio's spelling of a byte count: "4k", "1m", "512" (k and m are 1024-based in fio).
std::string FioSizeText(uint64_t bytes);

}  // namespace storbed

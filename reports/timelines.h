// Timeline summaries as plain text: one line per sampled timeline of each run.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"
#include "timeline.h"

namespace storbed {

// One line per timeline: name, samples, min/mean/max and unit. Ends with a newline when
// there is at least one timeline.
std::string RenderTimelineSummary(const std::vector<Timeline>& timelines);

// A run's timelines file as read: its guest and host timelines, or why it could not be.
struct RunTimelines {
  std::string path;   // dir + "/" + the record's timelines_file
  std::string error;  // "timelines file PATH is missing" / "... is malformed: why"; "" = read
  std::vector<Timeline> guest, host;
};

// Reads the record's timelines file under `dir`; never throws. A record without one is
// an empty RunTimelines with an empty path.
RunTimelines ReadRunTimelines(const std::string& dir, const RunRecord& record);

// Per-run timeline summaries, read from each run's timelines file under `dir`. A missing
// or malformed file is a line saying so, never an exception.
std::string RenderTimelines(const std::string& dir, const std::vector<RunRecord>& records);

}  // namespace storbed

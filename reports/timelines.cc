#include "reports/timelines.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "input_file.h"
#include "results/record_check.h"
#include "strict_json.h"

namespace storbed {

std::string RenderTimelineSummary(const std::vector<Timeline>& timelines) {
  std::string out;
  for (const Timeline& t : timelines) {
    const TimelineSummary s = Summarize(t);
    char figures[160];
    if (s.samples == 0) {
      std::snprintf(figures, sizeof figures, "%6zu samples", s.samples);
    } else {
      std::snprintf(figures, sizeof figures, "%6zu samples  min %.2f  mean %.2f  max %.2f",
                    s.samples, s.min, s.mean, s.max);
    }
    std::string line = t.name;
    if (line.size() < 28) line.resize(28, ' ');
    line += std::string(" ") + figures;
    if (s.samples > 0 && !t.unit.empty()) line += " " + t.unit;
    out += line + "\n";
  }
  return out;
}

RunTimelines ReadRunTimelines(const std::string& dir, const RunRecord& r) {
  RunTimelines out;
  if (r.timelines_file.empty()) return out;
  out.path = dir + "/" + r.timelines_file;
  // LoadResults refuses such records; a record made in code is checked here too.
  if (const std::string why = InsideDirProblem(r.timelines_file); !why.empty()) {
    out.error = "timelines_file " + why;
    return out;
  }
  std::error_code ec;
  if (!std::filesystem::exists(out.path, ec)) {
    out.error = "timelines file " + out.path + " is missing";
    return out;
  }
  std::string text;
  try {
    text = ReadInputFile(out.path, "timelines file");
  } catch (const InputFileError& e) {
    out.error = e.what();
    return out;
  }
  try {
    const auto doc = ParseJson(text);
    if (doc.contains("guest")) out.guest = doc["guest"].get<std::vector<Timeline>>();
    if (doc.contains("host")) out.host = doc["host"].get<std::vector<Timeline>>();
  } catch (const std::exception& e) {
    out.guest.clear();
    out.host.clear();
    out.error = "timelines file " + out.path + " is malformed: " + e.what();
  }
  return out;
}

std::string RenderTimelines(const std::string& dir, const std::vector<RunRecord>& records) {
  std::ostringstream out;
  for (const auto& r : records) {
    const RunTimelines t = ReadRunTimelines(dir, r);
    if (t.path.empty()) continue;
    if (!t.error.empty()) {
      out << r.run_id << ": " << t.error << "\n";
      continue;
    }
    out << r.run_id << " timelines:\n"
        << RenderTimelineSummary(t.guest) << RenderTimelineSummary(t.host);
  }
  return out.str();
}

}  // namespace storbed

#include "reports/timelines.h"

#include <cstdio>
#include <fstream>
#include <sstream>

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
  std::ifstream in(out.path);
  if (!in) {
    out.error = "timelines file " + out.path + " is missing";
    return out;
  }
  try {
    const auto doc = nlohmann::json::parse(in);
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

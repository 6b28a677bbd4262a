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

std::string RenderTimelines(const std::string& dir, const std::vector<RunRecord>& records) {
  std::ostringstream out;
  for (const auto& r : records) {
    if (r.timelines_file.empty()) continue;
    const std::string path = dir + "/" + r.timelines_file;
    std::ifstream in(path);
    if (!in) {
      out << r.run_id << ": timelines file " << path << " is missing\n";
      continue;
    }
    try {
      const auto doc = nlohmann::json::parse(in);
      out << r.run_id << " timelines:\n";
      for (const char* side : {"guest", "host"})
        if (doc.contains(side))
          out << RenderTimelineSummary(doc[side].get<std::vector<Timeline>>());
    } catch (const std::exception& e) {
      out << r.run_id << ": timelines file " << path << " is malformed: " << e.what() << "\n";
    }
  }
  return out.str();
}

}  // namespace storbed

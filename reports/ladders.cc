#include "reports/ladders.h"

#include <set>
#include <sstream>

#include "reports/ladder_text.h"

namespace storbed {

std::string RenderLadders(const std::vector<RunRecord>& all_records) {
  // Warm-up runs only prepared their combination: reports leave them out.
  std::vector<RunRecord> records;
  for (const auto& r : all_records)
    if (r.status != RunStatus::Warmup) records.push_back(r);
  std::ostringstream out;
  std::set<std::string> shown;
  auto bare_metal_of = [&](const std::string& job) -> const RunRecord* {
    for (const auto& r : records)
      if (r.target == "bare-metal" && r.job.name == job && r.ladder) return &r;
    return nullptr;
  };
  for (const auto& r : records) {
    if (!r.ladder || r.target == "bare-metal") continue;
    const RunRecord* twin = bare_metal_of(r.job.name);
    std::string title = r.run_id + " (" + r.accel + ")";
    if (twin) {
      title += " vs " + twin->run_id;
      shown.insert(twin->run_id);
    }
    out << RenderLadder(title, *r.ladder,
                        twin ? std::optional<Ladder>(*twin->ladder) : std::nullopt)
        << "\n";
  }
  for (const auto& r : records)
    if (r.ladder && r.target == "bare-metal" && !shown.count(r.run_id))
      out << RenderBareMetalLadder(r.run_id, *r.ladder) << "\n";
  return out.str();
}

}  // namespace storbed

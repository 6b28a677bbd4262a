#include "reports/ladders.h"

#include <set>
#include <sstream>

#include "reports/ladder_text.h"

namespace storbed {

std::vector<LadderPair> PairLadders(const std::vector<RunRecord>& records) {
  // Warm-up runs only prepared their combination: reports leave them out.
  auto shown_in_reports = [](const RunRecord& r) {
    return r.status != RunStatus::Warmup && r.ladder;
  };
  auto bare_metal_of = [&](const std::string& job) -> const RunRecord* {
    for (const auto& r : records)
      if (shown_in_reports(r) && r.target == "bare-metal" && r.job.name == job) return &r;
    return nullptr;
  };
  std::vector<LadderPair> pairs;
  std::set<std::string> paired;
  for (const auto& r : records) {
    if (!shown_in_reports(r) || r.target == "bare-metal") continue;
    const RunRecord* twin = bare_metal_of(r.job.name);
    if (twin) paired.insert(twin->run_id);
    pairs.push_back({&r, twin});
  }
  for (const auto& r : records)
    if (shown_in_reports(r) && r.target == "bare-metal" && !paired.count(r.run_id))
      pairs.push_back({&r, nullptr});
  return pairs;
}

std::string RenderLadders(const std::vector<RunRecord>& records) {
  std::ostringstream out;
  for (const LadderPair& p : PairLadders(records)) {
    const RunRecord& r = *p.run;
    if (r.target == "bare-metal") {
      out << RenderBareMetalLadder(r.run_id, *r.ladder) << "\n";
      continue;
    }
    std::string title = r.run_id + " (" + r.accel + ")";
    if (p.bare_metal_twin) title += " vs " + p.bare_metal_twin->run_id;
    out << RenderLadder(title, *r.ladder,
                        p.bare_metal_twin ? std::optional<Ladder>(*p.bare_metal_twin->ladder)
                                          : std::nullopt)
        << "\n";
  }
  return out.str();
}

}  // namespace storbed

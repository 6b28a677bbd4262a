#include "reports/ladders.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "reports/cells.h"
#include "reports/io_trace_text.h"
#include "reports/ladder_text.h"
#include "reports/trace_cost.h"

namespace storbed {
namespace {

// Warm-up runs only prepared their combination: reports leave them out.
bool ShownInReports(const RunRecord& r) { return r.status != RunStatus::Warmup && r.ladder; }

bool IsRepeatKey(const std::string& k) { return k == "repeat" || k == "warmup"; }

// After a traced run's block: what tracing cost, where the results hold untraced runs too.
std::string CostLine(const RunRecord& r, const std::vector<RunRecord>& records) {
  const std::string line = TraceCostLine(r, records);
  return line.empty() ? "" : "  " + line + "\n";
}

}  // namespace

bool SameCellAndRepeat(const RunRecord& guest, const RunRecord& bare) {
  if (bare.target != "bare-metal" || bare.job.name != guest.job.name) return false;
  if (guest.params.value("repeat", nlohmann::json()) != bare.params.value("repeat", nlohmann::json()))
    return false;
  for (const auto& [k, v] : bare.params.items()) {
    if (IsRepeatKey(k)) continue;
    if (!guest.params.contains(k) || guest.params.at(k) != v) return false;
  }
  return true;
}

std::vector<LadderPair> PairLadders(const std::vector<RunRecord>& records) {
  std::vector<LadderPair> pairs;
  std::set<std::string> paired;
  for (const auto& r : records) {
    if (!ShownInReports(r) || r.target == "bare-metal") continue;
    const RunRecord* twin = nullptr;
    for (const auto& b : records)
      if (ShownInReports(b) && SameCellAndRepeat(r, b)) {
        twin = &b;
        break;
      }
    if (twin) paired.insert(twin->run_id);
    pairs.push_back({&r, twin});
  }
  for (const auto& r : records)
    if (ShownInReports(r) && r.target == "bare-metal" && !paired.count(r.run_id))
      pairs.push_back({&r, nullptr});
  return pairs;
}

std::vector<RepeatedCell> RepeatedLadderCells(const std::vector<RunRecord>& records) {
  std::vector<RepeatedCell> cells;
  for (const auto& r : records) {
    if (!ShownInReports(r)) continue;
    const std::string cell = CellOf(r);
    auto it = std::find_if(cells.begin(), cells.end(),
                           [&](const RepeatedCell& c) { return c.cell == cell; });
    if (it == cells.end()) {
      cells.push_back({cell, {}});
      it = cells.end() - 1;
    }
    it->runs.push_back(&r);
  }
  std::vector<RepeatedCell> out;
  for (RepeatedCell& c : cells)
    if (c.runs.size() > 1) out.push_back(std::move(c));
  return out;
}

std::string RenderLadders(const std::vector<RunRecord>& records) {
  std::ostringstream out;
  for (const LadderPair& p : PairLadders(records)) {
    const RunRecord& r = *p.run;
    if (r.target == "bare-metal") {
      out << RenderBareMetalLadder(r.run_id, *r.ladder) << "\n" << RenderIoTrace(r, nullptr)
          << CostLine(r, records);
      continue;
    }
    std::string title = r.run_id + " (" + r.accel + ")";
    title += p.bare_metal_twin ? " vs " + p.bare_metal_twin->run_id
                               : " (no bare-metal run of the same cell and repeat)";
    out << RenderLadder(title, *r.ladder,
                        p.bare_metal_twin ? std::optional<Ladder>(*p.bare_metal_twin->ladder)
                                          : std::nullopt)
        << "\n"
        << (r.io_trace || !p.bare_metal_twin ? RenderIoTrace(r, p.bare_metal_twin)
                                             : RenderIoTrace(*p.bare_metal_twin, nullptr))
        << CostLine(r, records);
  }
  for (const RepeatedCell& c : RepeatedLadderCells(records)) {
    std::vector<const Ladder*> ladders;
    for (const RunRecord* r : c.runs) ladders.push_back(&*r->ladder);
    out << RenderLadderMedians("median over " + std::to_string(ladders.size()) + " repeats: " + c.cell,
                               ladders)
        << "\n";
  }
  return out.str();
}

}  // namespace storbed

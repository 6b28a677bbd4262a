#include "scenario/target_kind.h"

#include "backend/bus_table.h"

namespace storbed {

std::string ToString(TargetKind t) { return t.bus ? ToString(*t.bus) : kBareMetalTarget; }

std::optional<TargetKind> FindTarget(const std::string& name) {
  if (name == kBareMetalTarget) return TargetKind::BareMetal;
  if (const BusRow* row = FindBusRow(name)) return TargetKind{row->bus};
  return std::nullopt;
}

std::vector<std::string> TargetNames() {
  std::vector<std::string> names = BusNames();
  names.push_back(kBareMetalTarget);
  return names;
}

std::vector<std::string> DefaultTargetNames() {
  std::vector<std::string> names;
  for (const BusRow& row : BusTable()) {
    if (row.default_target) names.push_back(row.name);
  }
  names.push_back(kBareMetalTarget);
  return names;
}

std::string TargetsHelp() {
  std::string buses;
  for (const BusRow& row : BusTable()) buses += (buses.empty() ? "" : "; ") + std::string(row.help);
  return "Where each job runs: a guest disk on that bus (" + buses +
         "), or the host (bare metal) against the same backing through a loop device.";
}

}  // namespace storbed

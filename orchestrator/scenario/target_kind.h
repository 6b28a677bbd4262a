// Where a job runs: a guest disk on one bus (a row of the bus table), or the host (bare
// metal). The target names a scenario allows are the bus table's plus "bare-metal".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/machine_spec.h"

namespace storbed {

struct TargetKind {
  std::optional<Bus> bus;  // nullopt: bare metal

  static const TargetKind BareMetal;
  friend bool operator==(const TargetKind&, const TargetKind&) = default;
};
inline constexpr TargetKind TargetKind::BareMetal{};

inline constexpr const char* kBareMetalTarget = "bare-metal";

// The bus row's name, or "bare-metal".
std::string ToString(TargetKind t);

// Inverse of ToString; nullopt for a name that is no target.
std::optional<TargetKind> FindTarget(const std::string& name);

// Every target name: the buses in table order, then "bare-metal".
std::vector<std::string> TargetNames();

// A scenario's default targets: the buses marked default_target, then "bare-metal".
std::vector<std::string> DefaultTargetNames();

// The targets field's help text: each bus row's phrase, and bare metal.
std::string TargetsHelp();

}  // namespace storbed

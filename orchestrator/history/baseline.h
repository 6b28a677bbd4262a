// Which earlier sessions a gate compares tonight's runs with: `last:N` (the N latest that
// started before tonight), `rev:R` (every session of a storbed revision starting with R),
// `date:FROM[..TO]` (sessions whose start time, as ISO 8601 text, lies in the range; FROM
// and TO are prefixes: "2026-11-30", "2026-11-30T05").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "history/history_store.h"

namespace storbed {

struct BaselineSpec {
  enum class Kind { Last, Revision, Date };
  Kind kind = Kind::Last;
  size_t last = 7;
  std::string revision;
  std::string from, to;  // date: inclusive prefixes; to "" = same as from
};

// Throws std::invalid_argument naming the spec and the forms it may take.
BaselineSpec ParseBaseline(const std::string& text);

// The sessions of `sessions` (in start order) that `spec` picks; tonight's own session
// and any that started at or after `tonight_started_at` are never picked.
std::vector<HistorySession> PickBaseline(const std::vector<HistorySession>& sessions,
                                         const BaselineSpec& spec,
                                         const std::string& tonight_session,
                                         const std::string& tonight_started_at);

}  // namespace storbed

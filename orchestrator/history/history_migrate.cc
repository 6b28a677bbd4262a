#include "history/history_migrate.h"

#include <algorithm>
#include <ostream>

#include "images/file_digest.h"

namespace storbed {

std::string SessionDigest(const SessionRows& rows) {
  const HistorySession& s = rows.session;
  nlohmann::json dump = {s.session, s.results_dir, s.scenario,          s.scenario_hash, s.revision,
                         s.host,    s.started_at,  s.fingerprint_class, s.manifest_text};
  for (const HistoryRun& r : rows.runs) {
    auto metrics = r.metrics;
    std::sort(metrics.begin(), metrics.end());
    dump.push_back({r.run_id, r.cell, r.status, r.record, metrics});
  }
  return Sha256Hex(dump.dump());
}

namespace {
void Count(const SessionRows& rows, MigrateCounts& counts) {
  ++counts.sessions;
  counts.runs += rows.runs.size();
  for (const HistoryRun& r : rows.runs) counts.points += r.metrics.size();
}
}  // namespace

MigrateOutcome MigrateHistory(HistoryStore& from, HistoryStore& to, std::ostream& log) {
  MigrateOutcome out;
  const std::vector<HistorySession> sessions = from.Sessions();
  for (const HistorySession& s : sessions) {
    SessionRows rows = from.Rows(s.id);
    if (to.Insert(rows)) {
      ++out.copied;
      log << "history migrate: session " << s.session << " copied (" << rows.runs.size()
          << " runs)\n";
    } else {
      ++out.already_there;
      log << "history migrate: session " << s.session << " is there already; left as it is\n";
    }
  }
  // The check reads both sides back: what the target stored, not what was sent.
  for (const HistorySession& s : sessions) {
    const SessionRows mine = from.Rows(s.id);
    Count(mine, out.from);
    const auto theirs = to.FindSession(s.session);
    if (!theirs) {
      out.differing.push_back(s.session);
      continue;
    }
    const SessionRows copy = to.Rows(theirs->id);
    Count(copy, out.to);
    if (SessionDigest(mine) != SessionDigest(copy)) out.differing.push_back(s.session);
  }
  auto counts = [](const MigrateCounts& c) {
    return std::to_string(c.sessions) + " sessions, " + std::to_string(c.runs) + " runs, " +
           std::to_string(c.points) + " points";
  };
  if (!(out.from == out.to) || !out.differing.empty()) {
    std::string which;
    for (const std::string& s : out.differing) which += (which.empty() ? "" : ", ") + s;
    throw HistoryError("history migrate: the copy in " + to.name() + " differs from " +
                           from.name() + ": " + counts(out.from) + " against " + counts(out.to) +
                           (which.empty() ? "" : "; sessions whose rows differ: " + which),
                       ErrorKind::Host);
  }
  log << "history migrate: " << out.copied << " copied, " << out.already_there << " there already; "
      << counts(out.from) << " in both, every session's SHA-256 over its "
      << "rows equal in both\n";
  return out;
}

}  // namespace storbed

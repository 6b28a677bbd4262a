// `storbed history migrate FILE.sqlite postgresql://...`: copies every session of one history
// into another (a host's SQLite file into the lab's store), each session in one transaction,
// and checks the copy: the sessions, runs and points counted on both sides, and per session a
// digest over its rows read back from each. A session the target holds already is left as
// it is, so running it again adds nothing.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "history/history_store.h"

namespace storbed {

struct MigrateCounts {
  size_t sessions = 0, runs = 0, points = 0;
  bool operator==(const MigrateCounts&) const = default;
};

struct MigrateOutcome {
  size_t copied = 0, already_there = 0;
  MigrateCounts from, to;  // over the source's sessions, read from each side after the copy
  std::vector<std::string> differing;  // sessions whose digests differ
};

// SHA-256 (hex) over a canonical dump of a session's rows: every stored field but the
// database's own ids, runs in run order, metrics by name, numbers as JSON writes them.
std::string SessionDigest(const SessionRows& rows);

// Copies `from` into `to`, one line per session to `log`. Throws HistoryError (host) when the
// counts or a digest differ after the copy.
MigrateOutcome MigrateHistory(HistoryStore& from, HistoryStore& to, std::ostream& log);

}  // namespace storbed

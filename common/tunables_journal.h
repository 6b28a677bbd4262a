// The journal of queue settings the standalone agent changes on a host device
// (read_ahead_kb, scheduler, nr_requests, max_sectors_kb): the original values, written
// and fsynced before the first change, in a private storbed-tunables-* dir with an owner
// mark. The agent removes it once it has put the values back; after a SIGKILL the next
// agent run, or `storbed cleanup`, finds it (its owner gone) and restores from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job.h"

namespace storbed {

inline constexpr const char* kTunablesDirPrefix = "storbed-tunables-";
inline constexpr const char* kTunablesJournalFile = "tunables.json";

struct TunablesJournal {
  std::string device = "";      // "loop3": its queue is /sys/block/loop3/queue
  std::string dev_number = "";  // "7:3" then: a name reused by another device is left alone
  BlockTunables original = {};  // only the settings the job changes; -1 / "" for the rest
  bool operator==(const TunablesJournal&) const = default;
};

std::string FormatTunablesJournal(const TunablesJournal& journal);
// nullopt when `text` is not a journal.
std::optional<TunablesJournal> ParseTunablesJournal(const std::string& text);

// Writes `dir`/tunables.json through a temporary file and a rename, fsyncing the file and
// the dir, so a SIGKILL right after leaves a whole journal or none. Throws storbed::Error
// (Host) naming the file and the errno text.
void WriteTunablesJournal(const std::string& dir, const TunablesJournal& journal);

// Writes the originals back to <sysfs_root>/block/<device>/queue in the order the agent
// set them (scheduler first: switching it resets nr_requests). Returns what it did: "loop3:
// read_ahead_kb 128, nr_requests 256", or "loop3: gone" when the device (or its number)
// is not there any more, so nothing of it is left to put back. Throws storbed::Error (Host)
// naming the attribute, the value and the errno text when a write fails.
std::string RestoreTunables(const TunablesJournal& journal, const std::string& sysfs_root = "/sys");

// The storbed-tunables-* dirs directly under `root` whose owner mark is storbed's, of
// `this_host`, and names a process that no longer runs: the journals of killed agents.
// A dir without a storbed owner mark, of a live owner, of another user or open to others
// (not 0700) is never listed.
std::vector<std::string> StaleTunablesDirs(const std::string& root, const std::string& this_host,
                                           const std::string& proc_root = "/proc");

}  // namespace storbed

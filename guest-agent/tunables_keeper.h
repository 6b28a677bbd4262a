// The standalone agent's side of the tunables journal (common/tunables_journal.h): the
// journal of this run, in a private storbed-tunables-* dir under the journal root, and the
// restore of what killed runs left there.
#pragma once

#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include "job_runner.h"

namespace storbed::agent {

// Where journal dirs go unless --journal-dir says otherwise: storbed cleanup's default
// --work-dir, so a plain `storbed cleanup` finds them.
inline constexpr const char* kDefaultJournalRoot = "/var/tmp";

class TunablesKeeper : public TunablesRecorder {
 public:
  explicit TunablesKeeper(std::string root) : root_(std::move(root)) {}
  ~TunablesKeeper() override = default;

  // Makes the 0700 dir with this process's owner mark and writes the journal, fsynced.
  // Throws storbed::Error (Host), so the job stops with nothing changed.
  void Changing(const TunablesJournal& originals) override;
  // Removes the dir: the queue holds its originals again.
  void Restored() override;

  // From the signal thread: puts back what this run changed and removes the dir; returns
  // what it did ("" for nothing). Holds the lock for good: the process ends next.
  std::string RestoreForExit();

 private:
  std::string root_;
  std::mutex mutex_;
  std::optional<TunablesJournal> active_;
  std::string dir_;
};

// Restores from every journal under `root` whose owner is gone (a killed agent's), one
// line on `notes` each, and removes its dir. Never throws: a journal it cannot use is
// named on `notes` and kept.
void RestoreLeftoverTunables(const std::string& root, std::ostream& notes);

}  // namespace storbed::agent

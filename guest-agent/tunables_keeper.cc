#include "tunables_keeper.h"

#include <stdlib.h>

#include <cerrno>
#include <filesystem>

#include "error.h"
#include "errors.h"
#include "file_read.h"
#include "host_identity.h"
#include "owner_marker.h"

namespace storbed::agent {

namespace fs = std::filesystem;

void TunablesKeeper::Changing(const TunablesJournal& originals) {
  std::lock_guard lock(mutex_);
  if (dir_.empty()) {
    // mkdtemp makes the dir 0700: only root (the agent) reads or replaces the journal.
    std::string pattern = root_ + "/" + kTunablesDirPrefix + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error(ErrorKind::Host, "cannot make the tunables journal dir " + pattern + " (" +
                                       "--journal-dir " + root_ + "): " + ErrnoText(errno));
    dir_ = pattern;
    WriteOwnerMarker(dir_);
  }
  WriteTunablesJournal(dir_, originals);
  active_ = originals;
}

void TunablesKeeper::Restored() {
  std::lock_guard lock(mutex_);
  active_.reset();
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
  dir_.clear();
}

std::string TunablesKeeper::RestoreForExit() {
  mutex_.lock();  // never unlocked: the job's own restore must not run after this one
  if (!active_) return "";
  const std::string done = RestoreTunables(*active_);
  std::error_code ec;
  fs::remove_all(dir_, ec);
  return done;
}

void RestoreLeftoverTunables(const std::string& root, std::ostream& notes) {
  for (const std::string& dir : StaleTunablesDirs(root, ThisHostName())) {
    const std::string file = dir + "/" + kTunablesJournalFile;
    const auto text = TryReadFile(file);
    std::error_code ec;
    // Killed between making the dir and writing the journal: nothing was changed yet.
    if (!text && !fs::exists(file, ec)) {
      fs::remove_all(dir, ec);
      continue;
    }
    const auto journal = text ? ParseTunablesJournal(*text) : std::nullopt;
    if (!journal) {
      notes << "storbed-agent: warning: " << file << " is not a tunables journal; kept\n";
      continue;
    }
    try {
      notes << "storbed-agent: restored the queue settings a killed agent left changed (" << file
            << "): " << RestoreTunables(*journal) << "\n";
      fs::remove_all(dir, ec);
    } catch (const std::exception& e) {
      notes << "storbed-agent: warning: " << e.what() << " (journal " << file << " kept)\n";
    }
  }
}

}  // namespace storbed::agent

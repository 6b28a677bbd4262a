// The out directory of a `storbed run`, claimed for this process alone: an exclusive
// flock on OUT/.storbed.lock (holding the pid), so a second run into it refuses at once
// instead of overwriting the records and deleting the live sockets of the first. An
// earlier run's results found there are moved aside, never overwritten.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>

#include "error.h"

namespace storbed {

// The out directory cannot be used: another run holds it, or it holds files that are not
// storbed results. Bad input (exit 2).
class OutDirError : public Error {
 public:
  explicit OutDirError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

class OutDirClaim {
 public:
  // Creates `path` if needed and locks it. When it holds an earlier run (manifest.json or
  // results.json), renames it to PATH.earlier-N and says so on `log`. Throws OutDirError
  // naming the holder's pid, or a directory holding other files.
  OutDirClaim(const std::string& path, std::ostream& log);
  ~OutDirClaim();
  OutDirClaim(const OutDirClaim&) = delete;
  OutDirClaim& operator=(const OutDirClaim&) = delete;

  // Where the earlier run's results went; "" when there were none.
  const std::string& moved_to() const { return moved_to_; }

 private:
  int fd_ = -1;
  std::string moved_to_;
};

// The lock file's name inside an out directory.
inline constexpr const char* kOutDirLockFile = ".storbed.lock";

// The pid of another process's storbed run that holds `dir` now, or "" when none does: a
// finished or killed run released its lock with its life. Readers of a results directory
// (`history import`) refuse a live one rather than store a session that is half written.
std::string LiveWriterOf(const std::string& dir);

}  // namespace storbed

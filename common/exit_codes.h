// storbed's exit codes, every command's: the named constants, the table README.md and the man
// pages print (a test checks README's against it), and the one mapping from an ErrorKind.
#pragma once

#include "error.h"

namespace storbed {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the host or storbed itself (ErrorKind Host, Internal)
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitRunsFailed = 3;
inline constexpr int kExitWorse = 4;
inline constexpr int kExitNotComparable = 5;
// The gate could not see a change of the size it guards (and nothing was worse).
inline constexpr int kExitCannotJudge = 6;
// Every handled fatal signal (backend/interrupt.h): 128 + SIGINT, as a shell reports Ctrl-C.
// One code whichever the signal, so a script tests for one value.
inline constexpr int kExitInterrupted = 130;

struct ExitCodeRow {
  int code;
  const char* meaning;  // one sentence, plain text (no markup)
};

// The documented table, in order.
inline constexpr ExitCodeRow kExitCodes[] = {
    {kExitOk, "Done; for compare and gate, no primary metric worse."},
    {kExitFailed,
     "A host or internal error: the host lacks something a run needs, a file system or SQLite "
     "failed, the history's PostgreSQL server could not be reached (after 3 tries), or the "
     "out dir filled up (every record is then printed on stderr as JSON)."},
    {kExitBadInput,
     "Bad input: a usage error, a bad scenario, results directory or history (a file, or a "
     "server database that is not a history, newer, refused or read-only), named in one line "
     "(file, field and reason)."},
    {kExitRunsFailed,
     "Some runs failed; each is named on stderr, their records say why, finished runs are on "
     "disk."},
    {kExitWorse,
     "compare and gate: some primary metric (iops, p50, p99, Holm-corrected over every cell) "
     "worse."},
    {kExitNotComparable,
     "compare and gate: the sides are not comparable (an environment item "
     "differs)."},
    {kExitCannotJudge,
     "gate: cannot judge (the baseline nights could not show a change of --guard, 10% by "
     "default, with 80% power)."},
    {kExitInterrupted,
     "Interrupted by Ctrl-C (SIGINT), SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 or SIGALRM "
     "(130 whichever the signal); finished runs are kept, the rest marked skipped."},
};

// The exit code of an error of `kind`: the one place a kind becomes a code.
constexpr int ExitCodeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput:
      return kExitBadInput;
    case ErrorKind::Interrupted:
      return kExitInterrupted;
    case ErrorKind::Host:
    case ErrorKind::Internal:
      break;
  }
  return kExitFailed;
}

}  // namespace storbed

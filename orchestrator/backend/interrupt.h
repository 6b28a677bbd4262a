// Fatal-signal handling: SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and
// SIGALRM only set a flag; every wait in the backend polls it in <=100 ms slices, so cleanup
// (killing QEMU, removing work dirs) runs in normal code on the way out. SIGPIPE is ignored
// process-wide (cli/main.cc): a write to a closed pipe is an EPIPE error where it happens.
#pragma once

#include <stdexcept>
#include <string>

#include "error.h"
#include "fatal_signals.h"

namespace storbed {

// The signals InstallInterruptHandlers catches, each ending a run as Ctrl-C does.
inline constexpr const auto& kInterruptSignals = kFatalSignals;

// "SIGINT" (Ctrl-C), "SIGHUP", ... for the first handled signal that arrived; "a signal"
// when none did (an interruption raised by a test's fake).
std::string InterruptSignalName();

// The error of a run cut short: "interrupted (SIGHUP)".
std::string InterruptedRunText();

// Thrown by ThrowIfInterrupted once a handled signal arrived.
class InterruptedError : public Error {
 public:
  InterruptedError() : Error(ErrorKind::Interrupted, "interrupted by " + InterruptSignalName()) {}
};

// Installs the handlers for kInterruptSignals (sigaction without SA_RESTART, so blocking
// calls return EINTR). Safe to call more than once.
void InstallInterruptHandlers();
// True once a handled signal arrived.
bool Interrupted();
// Throws InterruptedError if Interrupted().
void ThrowIfInterrupted();
// Forgets a received signal. For tests, and for a CLI that handled it.
void ClearInterrupted();

}  // namespace storbed

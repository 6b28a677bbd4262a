// Ctrl-C and SIGTERM handling: the handler only sets a flag; every wait in the backend
// polls it in <=100 ms slices, so cleanup (killing QEMU) runs in normal code on the way out.
#pragma once

#include <stdexcept>

#include "error.h"

namespace storbed {

// Thrown by ThrowIfInterrupted once SIGINT or SIGTERM arrived.
class InterruptedError : public Error {
 public:
  InterruptedError()
      : Error(ErrorKind::Interrupted, "interrupted by a signal (Ctrl-C or SIGTERM)") {}
};

// Installs the SIGINT/SIGTERM handlers (sigaction without SA_RESTART, so blocking calls
// return EINTR). Safe to call more than once.
void InstallInterruptHandlers();
// True once a handled signal arrived.
bool Interrupted();
// Throws InterruptedError if Interrupted().
void ThrowIfInterrupted();
// Forgets a received signal. For tests, and for a CLI that handled it.
void ClearInterrupted();

}  // namespace storbed

#include "backend/interrupt.h"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace storbed {
namespace {

// Lock-free, so it is async-signal-safe to store from the handler.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void OnInterrupt(int) { g_interrupted.store(true, std::memory_order_relaxed); }

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read must wake up and look at the flag
  for (int sig : {SIGINT, SIGTERM}) {
    if (sigaction(sig, &sa, nullptr) != 0) {
      throw std::system_error(errno, std::generic_category(),
                              "sigaction(" + std::string(strsignal(sig)) + ")");
    }
  }
}

bool Interrupted() { return g_interrupted.load(std::memory_order_relaxed); }

void ThrowIfInterrupted() {
  if (Interrupted()) throw InterruptedError();
}

void ClearInterrupted() { g_interrupted.store(false, std::memory_order_relaxed); }

}  // namespace storbed

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
std::atomic<int> g_signal{0};  // the first handled signal; 0: none yet
static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnInterrupt(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
  g_interrupted.store(true, std::memory_order_relaxed);
}

}  // namespace

std::string InterruptSignalName() {
  switch (g_signal.load(std::memory_order_relaxed)) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGALRM:
      return "SIGALRM";
  }
  return "a signal";
}

std::string InterruptedRunText() { return "interrupted (" + InterruptSignalName() + ")"; }

void InstallInterruptHandlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read must wake up and look at the flag
  for (int sig : kInterruptSignals) {
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

void ClearInterrupted() {
  g_interrupted.store(false, std::memory_order_relaxed);
  g_signal.store(0, std::memory_order_relaxed);
}

}  // namespace storbed

#include "exit_signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "fatal_signals.h"

namespace storbed::agent {
namespace {

sigset_t ExitSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  for (const int s : kFatalSignals) sigaddset(&set, s);
  return set;
}

}  // namespace

void HandleExitSignals(std::function<void(int)> cleanup) {
  ::signal(SIGPIPE, SIG_IGN);
  const sigset_t set = ExitSignalSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // Detached: it lives as long as the process, waiting; a normal exit just ends it.
  std::thread([set, cleanup = std::move(cleanup)] {
    int signal = 0;
    while (sigwait(&set, &signal) != 0) {
    }
    cleanup(signal);
    // The default action, delivered to this thread (the only one with it unblocked), so
    // the parent sees "killed by signal N" as before.
    ::signal(signal, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, signal);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
    ::raise(signal);
    ::_exit(128 + signal);  // a signal whose default is not to end the process
  }).detach();
}

}  // namespace storbed::agent

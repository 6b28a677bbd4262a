// The signals that end storbed and its agent by default and that each catches to clean up
// first (SIGKILL and SIGSTOP cannot be caught): storbed marks the run interrupted and keeps
// its results (orchestrator/backend/interrupt.h); the host agent puts back the queue
// settings it changed (guest-agent/exit_signals.h). One list, so the two cannot drift.
// SIGPIPE is not in it: both ignore it, so a closed pipe is an EPIPE error where it happens.
#pragma once

#include <csignal>

namespace storbed {

inline constexpr int kFatalSignals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                        SIGUSR1, SIGUSR2, SIGALRM};

}  // namespace storbed

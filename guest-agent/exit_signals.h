// The standalone agent's fatal signals (TERM, INT, HUP, QUIT, USR1, USR2, ALRM), turned
// from an instant death into: run the cleanup, then die of the same signal. SIGPIPE is
// ignored instead: a closed stdout fails the write (the heartbeat's, the result's) rather
// than killing the agent with the host's tunables changed.
#pragma once

#include <functional>

namespace storbed::agent {

// Blocks those signals in the calling thread, so every thread started after it inherits
// the mask, and starts a thread that waits for them. On one, `cleanup(signal)` runs on that
// thread, then the process dies of the signal, as it would have without this. Call it
// before any other thread starts; once per process.
void HandleExitSignals(std::function<void(int)> cleanup);

}  // namespace storbed::agent

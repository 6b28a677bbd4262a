// The agent's entry point: picks the mode, catches every error in one place and turns
// it into "storbed-agent: <sentence>" and an exit code.
#pragma once

namespace storbed::agent {

// Exit codes outside PID 1.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;    // the job or the channel failed
inline constexpr int kExitBadInput = 2;  // bad command line or job file

// As PID 1 it never returns (see init_mode.h).
int RunMain(int argc, char** argv);

}  // namespace storbed::agent

// The whole life of the agent as PID 1 of a storbed guest.
#pragma once

namespace storbed::agent {

// Sets up the guest (pid1.h), serves the protocol on the agent port with the "guest
// block layer" label, and powers off after `shutdown`. Any fatal error is printed on
// the console, sent on the port when it is open, and ends in a power off too.
[[noreturn]] void RunAsInit();

}  // namespace storbed::agent

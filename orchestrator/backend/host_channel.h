// The host's side of line channels (common/line_channel.h): connecting to QEMU's unix
// sockets, and the options every host channel uses, so Ctrl-C ends any wait on one.
#pragma once

#include <functional>
#include <string>

#include "line_channel.h"

namespace storbed {

// Connects to a unix stream socket, retrying while it does not exist yet or refuses
// (QEMU creates it shortly after start). Runs ThrowIfInterrupted and check() between
// attempts. Throws ChannelError with the last errno once the deadline passes.
UniqueFd ConnectUnixSocket(const std::string& path, Clock::time_point deadline,
                           const std::function<void()>& check);

// Non-blocking fds, a partial last line dropped (a peer that died mid-message), and
// ThrowIfInterrupted between poll slices.
LineChannelOptions HostChannelOptions();

}  // namespace storbed

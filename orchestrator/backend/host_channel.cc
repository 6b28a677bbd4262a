#include "backend/host_channel.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "backend/interrupt.h"

namespace storbed {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace

UniqueFd ConnectUnixSocket(const std::string& path, Clock::time_point deadline,
                           const std::function<void()>& check) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    throw ChannelError("socket path too long (" + std::to_string(path.size()) + " > " +
                       std::to_string(sizeof(addr.sun_path) - 1) + "): " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  for (;;) {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid()) throw ChannelError("socket(AF_UNIX): " + ErrnoText(errno));
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      return fd;
    }
    int err = errno;
    // ENOENT: not created yet; ECONNREFUSED: a stale file or not listening yet.
    if (err != ENOENT && err != ECONNREFUSED && err != EINTR) {
      throw ChannelError("connect(" + path + "): " + ErrnoText(err));
    }
    ThrowIfInterrupted();
    if (check) check();
    if (Clock::now() >= deadline) {
      throw ChannelError("connect(" + path + ") still failing at the deadline: " + ErrnoText(err));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

LineChannelOptions HostChannelOptions() {
  LineChannelOptions options;
  options.between_slices = ThrowIfInterrupted;
  return options;
}

}  // namespace storbed

#include "backend/line_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "backend/interrupt.h"

namespace storbed {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

int SliceMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, kPollSlice.count()));
}

void SetNonBlocking(int fd, const std::string& peer) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw ChannelError("fcntl(O_NONBLOCK) on the channel to " + peer + ": " + ErrnoText(errno));
  }
}

// write() to a pipe whose reader is gone raises SIGPIPE, which would kill storbed and
// leave QEMU running. Block it around the write and swallow a pending one.
ssize_t WriteNoSigpipe(int fd, const char* data, size_t len) {
  ssize_t n = ::send(fd, data, len, MSG_NOSIGNAL);
  if (n >= 0 || errno != ENOTSOCK) return n;
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  n = ::write(fd, data, len);
  int err = errno;
  if (n < 0 && err == EPIPE) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return n;
}

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
      throw ChannelError("connect(" + path + ") still failing at the deadline: " +
                         ErrnoText(err));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

LineChannel::LineChannel(UniqueFd fd, std::string peer)
    : read_fd_(std::move(fd)), peer_(std::move(peer)) {
  SetNonBlocking(read_fd_.get(), peer_);
}

LineChannel::LineChannel(UniqueFd read_fd, UniqueFd write_fd, std::string peer)
    : read_fd_(std::move(read_fd)), write_fd_(std::move(write_fd)), peer_(std::move(peer)) {
  SetNonBlocking(read_fd_.get(), peer_);
  SetNonBlocking(write_fd_.get(), peer_);
}

void LineChannel::WriteLine(const std::string& line, Clock::time_point deadline,
                            const std::function<void()>& check) {
  const int fd = write_fd_.valid() ? write_fd_.get() : read_fd_.get();
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = WriteNoSigpipe(fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      throw ChannelError("write to " + peer_ + ": " + ErrnoText(errno));
    }
    ThrowIfInterrupted();
    if (check) check();
    if (Clock::now() >= deadline) {
      throw ChannelError("write to " + peer_ + " blocked until the deadline");
    }
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, SliceMs(deadline));
  }
}

bool LineChannel::TakeBufferedLine(std::string* line) {
  size_t nl = buffer_.find('\n');
  if (nl == std::string::npos) return false;
  line->assign(buffer_, 0, nl);
  buffer_.erase(0, nl + 1);
  return true;
}

LineChannel::ReadStatus LineChannel::ReadLine(std::string* line, Clock::time_point deadline,
                                              const std::function<void()>& check) {
  for (;;) {
    if (TakeBufferedLine(line)) return ReadStatus::kLine;
    if (eof_) return ReadStatus::kEof;
    char chunk[4096];
    ssize_t n = ::read(read_fd_.get(), chunk, sizeof(chunk));
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) {
      eof_ = true;
      continue;
    }
    if (errno != EAGAIN && errno != EINTR) {
      throw ChannelError("read from " + peer_ + ": " + ErrnoText(errno));
    }
    ThrowIfInterrupted();
    if (check) check();
    if (Clock::now() >= deadline) return ReadStatus::kTimeout;
    pollfd p{read_fd_.get(), POLLIN, 0};
    ::poll(&p, 1, SliceMs(deadline));
  }
}

}  // namespace storbed

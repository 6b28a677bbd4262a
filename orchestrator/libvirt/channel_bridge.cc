#include "libvirt/channel_bridge.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>

#include "libvirt/virt_handles.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

// Stop reading a side while this much waits for the other: a large result is held in
// socket buffers and here, never unbounded.
constexpr size_t kHighWater = 1 << 20;
constexpr size_t kChunk = 64 * 1024;

}  // namespace

// Everything the loop thread's callbacks touch. `mu` guards the pump; `release_mu` the
// two flags the free callbacks set (kept apart: libvirt calls the stream's free callback
// with its own lock held, while a pump callback may hold `mu` and wait for that lock).
struct ChannelBridge::State {
  std::mutex mu;
  virStreamPtr stream = nullptr;
  UniqueFd fd;  // the bridge's end, non-blocking
  int watch = -1;
  bool stream_cb_added = false;
  std::string to_fd, to_stream;
  bool stream_done = false, fd_done = false, fd_shut = false, closed = false;

  std::mutex release_mu;
  std::condition_variable released;
  bool stream_cb_released = false, watch_released = false;

  void FlushToFd() {
    while (!to_fd.empty() && !fd_done) {
      const ssize_t n = ::send(fd.get(), to_fd.data(), to_fd.size(), MSG_NOSIGNAL);
      if (n > 0) {
        to_fd.erase(0, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        break;
      } else {
        fd_done = true;  // the agent end is gone
        to_fd.clear();
      }
    }
    // The guest side closed: once its last bytes are out, the agent end reads EOF.
    if (stream_done && to_fd.empty() && !fd_shut) {
      ::shutdown(fd.get(), SHUT_WR);
      fd_shut = true;
    }
  }

  void FlushToStream() {
    while (!to_stream.empty() && !stream_done) {
      const int n = virStreamSend(stream, to_stream.data(), std::min(to_stream.size(), kChunk));
      if (n > 0) {
        to_stream.erase(0, static_cast<size_t>(n));
      } else if (n == -2) {
        break;  // would block: WRITABLE will call again
      } else {
        virResetLastError();
        stream_done = true;
        to_stream.clear();
      }
    }
  }

  void ReadStream() {
    char buf[kChunk];
    while (!stream_done && to_fd.size() < kHighWater) {
      const int n = virStreamRecv(stream, buf, sizeof buf);
      if (n > 0) {
        to_fd.append(buf, static_cast<size_t>(n));
      } else if (n == -2) {
        break;
      } else {
        if (n < 0) virResetLastError();
        stream_done = true;  // EOF (0) or a broken stream (-1): the guest side is gone
      }
    }
  }

  void ReadFd() {
    char buf[kChunk];
    while (!fd_done && to_stream.size() < kHighWater) {
      const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
      if (n > 0) {
        to_stream.append(buf, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        break;
      } else {
        fd_done = true;
      }
    }
  }

  // Asks only for the events that can make progress, so a full side is not polled hot.
  void UpdateInterest() {
    int st = 0;
    if (!stream_done) {
      if (to_fd.size() < kHighWater) st |= VIR_STREAM_EVENT_READABLE;
      if (!to_stream.empty()) st |= VIR_STREAM_EVENT_WRITABLE;
    }
    virStreamEventUpdateCallback(stream, st);
    int fe = 0;
    if (!fd_done) {
      if (!stream_done && to_stream.size() < kHighWater) fe |= VIR_EVENT_HANDLE_READABLE;
      if (!to_fd.empty()) fe |= VIR_EVENT_HANDLE_WRITABLE;
    }
    virEventUpdateHandle(watch, fe);
  }
};

namespace {

using State = ChannelBridge::State;

void OnStream(virStreamPtr, int events, void* opaque) {
  State& s = *static_cast<State*>(opaque);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.closed) return;
  if (events & (VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR))
    s.ReadStream();
  if (events & (VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR)) s.stream_done = true;
  if (events & VIR_STREAM_EVENT_WRITABLE) s.FlushToStream();
  s.FlushToFd();
  s.UpdateInterest();
}

void OnFd(int, int, int events, void* opaque) {
  State& s = *static_cast<State*>(opaque);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.closed) return;
  if (events & (VIR_EVENT_HANDLE_READABLE | VIR_EVENT_HANDLE_HANGUP | VIR_EVENT_HANDLE_ERROR))
    s.ReadFd();
  if (events & VIR_EVENT_HANDLE_WRITABLE) s.FlushToFd();
  s.FlushToStream();
  s.UpdateInterest();
}

void StreamCallbackReleased(void* opaque) {
  State& s = *static_cast<State*>(opaque);
  std::lock_guard<std::mutex> lock(s.release_mu);
  s.stream_cb_released = true;
  s.released.notify_all();
}

void WatchReleased(void* opaque) {
  State& s = *static_cast<State*>(opaque);
  std::lock_guard<std::mutex> lock(s.release_mu);
  s.watch_released = true;
  s.released.notify_all();
}

}  // namespace

ChannelBridge::ChannelBridge(std::unique_ptr<State> state) : state_(std::move(state)) {}

std::unique_ptr<ChannelBridge> ChannelBridge::Open(virConnectPtr conn, virDomainPtr domain,
                                                   const std::string& uri,
                                                   const std::string& name,
                                                   UniqueFd* agent_end) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw ChannelError(std::string("socketpair for the agent channel: ") + std::strerror(errno));
  }
  UniqueFd mine(sv[0]), theirs(sv[1]);
  if (::fcntl(mine.get(), F_SETFL, ::fcntl(mine.get(), F_GETFL) | O_NONBLOCK) != 0) {
    throw ChannelError(std::string("fcntl O_NONBLOCK: ") + std::strerror(errno));
  }
  StreamHandle stream(virStreamNew(conn, VIR_STREAM_NONBLOCK));
  if (!stream) ThrowLastLibvirtError(uri, "virStreamNew");
  if (virDomainOpenChannel(domain, name.c_str(), stream.get(), 0) < 0) {
    ThrowLastLibvirtError(uri, "open channel " + name + " of domain " + virDomainGetName(domain));
  }
  auto state = std::make_unique<State>();
  state->stream = stream.release();
  state->fd = std::move(mine);
  std::unique_ptr<ChannelBridge> bridge(new ChannelBridge(std::move(state)));
  State& s = *bridge->state_;
  // Held while registering: no callback pumps before both are in place.
  std::lock_guard<std::mutex> lock(s.mu);
  if (virStreamEventAddCallback(s.stream, VIR_STREAM_EVENT_READABLE, OnStream, &s,
                                StreamCallbackReleased) < 0) {
    ThrowLastLibvirtError(uri, "virStreamEventAddCallback on channel " + name);
  }
  s.stream_cb_added = true;
  s.watch = virEventAddHandle(s.fd.get(), VIR_EVENT_HANDLE_READABLE, OnFd, &s, WatchReleased);
  if (s.watch < 0) ThrowLastLibvirtError(uri, "virEventAddHandle for channel " + name);
  *agent_end = std::move(theirs);
  return bridge;
}

ChannelBridge::~ChannelBridge() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.closed = true;
  }
  if (s.stream_cb_added) {
    virStreamEventRemoveCallback(s.stream);
  } else {
    s.stream_cb_released = true;
  }
  if (s.watch >= 0) {
    virEventRemoveHandle(s.watch);
  } else {
    s.watch_released = true;
  }
  // Both free callbacks have run once no pump callback can still be inside the state.
  std::unique_lock<std::mutex> lock(s.release_mu);
  if (!s.released.wait_for(lock, 5s, [&] { return s.stream_cb_released && s.watch_released; })) {
    (void)state_.release();  // the event loop is stuck: leak rather than free under it
    return;
  }
  lock.unlock();
  virStreamAbort(s.stream);
  virResetLastError();
  virStreamFree(s.stream);
}

}  // namespace storbed

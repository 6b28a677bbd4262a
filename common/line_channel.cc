#include "line_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace storbed {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;

std::string ErrnoText(int err) { return std::strerror(err); }

int SliceMs(Clock::time_point deadline) {
  const auto now = Clock::now();
  if (deadline <= now) return 0;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, kPollSlice.count()));
}

void SetNonBlocking(int fd, const std::string& peer) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw ChannelError("fcntl(O_NONBLOCK) on the channel to " + peer + ": " + ErrnoText(errno));
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
  const int err = errno;
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

LineChannel::LineChannel(UniqueFd fd, std::string peer, LineChannelOptions options)
    : read_fd_(std::move(fd)), peer_(std::move(peer)), options_(std::move(options)) {
  if (options_.nonblocking) SetNonBlocking(read_fd_.get(), peer_);
}

LineChannel::LineChannel(UniqueFd read_fd, UniqueFd write_fd, std::string peer,
                         LineChannelOptions options)
    : read_fd_(std::move(read_fd)),
      write_fd_(std::move(write_fd)),
      peer_(std::move(peer)),
      options_(std::move(options)) {
  if (!options_.nonblocking) return;
  SetNonBlocking(read_fd_.get(), peer_);
  SetNonBlocking(write_fd_.get(), peer_);
}

void LineChannel::RunChecks(const std::function<void()>& check) const {
  if (options_.between_slices) options_.between_slices();
  if (check) check();
}

void LineChannel::WriteLine(const std::string& line, Clock::time_point deadline,
                            const std::function<void()>& check) {
  const int fd = write_fd();
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = WriteNoSigpipe(fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR)
      throw ChannelError("write to " + peer_ + ": " + ErrnoText(errno));
    RunChecks(check);
    if (Clock::now() >= deadline)
      throw ChannelError("write to " + peer_ + " blocked until the deadline");
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, SliceMs(deadline));
  }
}

bool LineChannel::TakeBuffered(std::string* line, ReadStatus* status) {
  const size_t newline = buffer_.find('\n', scanned_);
  if (newline == std::string::npos) {
    // No newline yet: drop what is over the limit instead of buffering without bound.
    if (buffer_.size() > options_.max_line_bytes) {
      if (!discarding_) excerpt_ = buffer_.substr(0, kTooLongExcerptBytes);
      discarding_ = true;
      buffer_.clear();
    }
    scanned_ = buffer_.size();
    return false;
  }
  line->assign(buffer_, 0, newline);
  buffer_.erase(0, newline + 1);
  scanned_ = 0;
  if (discarding_) {
    discarding_ = false;
    *line = std::move(excerpt_);
    *status = ReadStatus::kTooLong;
  } else if (line->size() > options_.max_line_bytes) {
    line->resize(kTooLongExcerptBytes);
    *status = ReadStatus::kTooLong;
  } else {
    if (!line->empty() && line->back() == '\r') line->pop_back();
    *status = ReadStatus::kLine;
  }
  return true;
}

LineChannel::ReadStatus LineChannel::AtEnd(std::string* line) {
  if (discarding_) {  // an over-long tail without '\n'
    discarding_ = false;
    *line = std::move(excerpt_);
    return ReadStatus::kTooLong;
  }
  if (buffer_.empty() || !options_.keep_unterminated_last_line) {
    buffer_.clear();
    return ReadStatus::kEof;
  }
  *line = std::move(buffer_);
  buffer_.clear();
  scanned_ = 0;
  return ReadStatus::kLine;
}

void LineChannel::ReadChunk() {
  char chunk[kChunkBytes];
  const ssize_t n = ::read(read_fd_.get(), chunk, sizeof chunk);
  if (n > 0) {
    buffer_.append(chunk, static_cast<size_t>(n));
  } else if (n == 0) {
    if (options_.zero_read == ZeroRead::EndOfStream) eof_ = true;
  } else if (errno != EAGAIN && errno != EINTR) {
    throw ChannelError("read from " + peer_ + ": " + ErrnoText(errno));
  }
}

LineChannel::ReadStatus LineChannel::ReadLine(std::string* line, Clock::time_point deadline,
                                              const std::function<void()>& check) {
  if (!read_fd_.valid()) throw ChannelError("read from " + peer_ + ": the channel has no fd");
  for (;;) {
    ReadStatus status;
    if (TakeBuffered(line, &status)) return status;
    if (eof_) return AtEnd(line);
    pollfd p{read_fd_.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, SliceMs(deadline));
    if (ready < 0 && errno != EINTR)
      throw ChannelError("poll on the channel to " + peer_ + ": " + ErrnoText(errno));
    if (ready > 0) {
      const size_t before = buffer_.size();
      ReadChunk();
      if (buffer_.size() != before || eof_) continue;
      // Nothing came: a disconnected virtio-serial port (POLLHUP, read 0); wait.
      if (options_.zero_read == ZeroRead::RetryLater)
        std::this_thread::sleep_for(options_.retry_delay);
    }
    RunChecks(check);
    if (Clock::now() >= deadline) return ReadStatus::kTimeout;
  }
}

}  // namespace storbed

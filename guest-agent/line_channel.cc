#include "line_channel.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "errors.h"

namespace storbed::agent {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;

}  // namespace

FdLineChannel::FdLineChannel(int read_fd, int write_fd, FdChannelOptions options)
    : read_fd_(read_fd), write_fd_(write_fd), options_(options) {}

LineRead FdLineChannel::ReadLine() {
  for (;;) {
    const size_t newline = buffer_.find('\n', scanned_);
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      scanned_ = 0;
      if (discarding_) {
        discarding_ = false;
        return {LineRead::Status::TooLong, std::move(excerpt_)};
      }
      if (line.size() > options_.max_line_bytes)
        return {LineRead::Status::TooLong, line.substr(0, kTooLongExcerptBytes)};
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return {LineRead::Status::Line, std::move(line)};
    }
    // No newline yet: drop what is over the limit instead of buffering without bound.
    if (buffer_.size() > options_.max_line_bytes) {
      if (!discarding_) excerpt_ = buffer_.substr(0, kTooLongExcerptBytes);
      discarding_ = true;
      buffer_.clear();
    }
    scanned_ = buffer_.size();
    if (!Fill()) {
      if (discarding_) {
        discarding_ = false;
        return {LineRead::Status::TooLong, std::move(excerpt_)};
      }
      if (buffer_.empty()) return {LineRead::Status::End, ""};
      // A last line without '\n' still counts.
      std::string line = std::move(buffer_);
      buffer_.clear();
      scanned_ = 0;
      return {LineRead::Status::Line, std::move(line)};
    }
  }
}

bool FdLineChannel::Fill() {
  char chunk[kChunkBytes];
  for (;;) {
    const ssize_t n = ::read(read_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n == 0) {
      if (options_.zero_read == ZeroRead::EndOfStream) return false;
      std::this_thread::sleep_for(options_.retry_delay);
      continue;
    }
    if (errno == EINTR) continue;
    throw SystemError("cannot read from the agent channel (fd " + std::to_string(read_fd_) + ")",
                      errno);
  }
}

void FdLineChannel::WriteLine(const std::string& line) {
  const std::string data = line + '\n';
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(write_fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw SystemError("cannot write to the agent channel (fd " + std::to_string(write_fd_) + ")",
                        errno);
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace storbed::agent

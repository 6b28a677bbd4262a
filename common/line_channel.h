// Newline-framed text over a stream fd: a unix socket or pipe pair on the host (QMP, the
// agent link), the guest's virtio-serial port or stdin/stdout in the agent. One class for
// both sides. Every wait polls in <= kPollSlice slices and runs the checks between slices,
// so a dead peer, a dead QEMU or Ctrl-C ends it promptly.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "error.h"
#include "unique_fd.h"

namespace storbed {

using Clock = std::chrono::steady_clock;
// Longest single poll(); bounds the reaction time to Ctrl-C and deaths.
inline constexpr std::chrono::milliseconds kPollSlice{100};
// How much of an over-long line is kept for the error reply.
inline constexpr size_t kTooLongExcerptBytes = 256;

// A system call failed on the channel; what() names the call, the peer and errno text.
class ChannelError : public Error {
 public:
  explicit ChannelError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// What a read() of 0 bytes means on this fd.
enum class ZeroRead {
  EndOfStream,  // pipes, sockets, files
  // A guest virtio-serial port returns 0 (and poll reports POLLHUP) while the host end
  // is not connected; the host may connect later, so the port never really ends.
  RetryLater,
};

struct LineChannelOptions {
  // A longer line is dropped and read as kTooLong with its start, instead of being
  // buffered without bound.
  size_t max_line_bytes = SIZE_MAX;
  ZeroRead zero_read = ZeroRead::EndOfStream;
  std::chrono::milliseconds retry_delay{50};  // ZeroRead::RetryLater: wait between reads
  // A last line without '\n' at the end of the stream: a line (a request a person typed),
  // or dropped (a peer that died mid-message; what it wrote is no message).
  bool keep_unterminated_last_line = false;
  // O_NONBLOCK on the fds, so a write to a stuck peer cannot outlive its deadline. Off
  // for a terminal the fd may share with a shell.
  bool nonblocking = true;
  // Runs between slices of every wait, before the caller's check (the host: Ctrl-C).
  std::function<void()> between_slices;
};

class LineChannel {
 public:
  enum class ReadStatus {
    kLine,     // *line is one line, without '\n' and a trailing '\r'
    kEof,      // the peer closed
    kTimeout,  // the deadline passed first
    kTooLong,  // a line passed max_line_bytes and was dropped; *line is its start
  };

  // One bidirectional fd (socket) or a read and a write end (pipes). `peer` names the
  // other side in error messages. Throws ChannelError when O_NONBLOCK cannot be set.
  LineChannel(UniqueFd fd, std::string peer, LineChannelOptions options = {});
  LineChannel(UniqueFd read_fd, UniqueFd write_fd, std::string peer,
              LineChannelOptions options = {});
  LineChannel(LineChannel&&) = default;
  LineChannel& operator=(LineChannel&&) = default;

  // Writes line + '\n' completely. A closed peer is a ChannelError, never SIGPIPE.
  void WriteLine(const std::string& line, Clock::time_point deadline = Clock::time_point::max(),
                 const std::function<void()>& check = {});
  // Reads the next line. Runs the checks between poll slices; they may throw to abort.
  // Throws ChannelError when read() fails.
  ReadStatus ReadLine(std::string* line, Clock::time_point deadline = Clock::time_point::max(),
                      const std::function<void()>& check = {});
  const std::string& peer() const { return peer_; }

 private:
  // A whole line (or an over-long one) from the buffer; false when none is there yet.
  bool TakeBuffered(std::string* line, ReadStatus* status);
  ReadStatus AtEnd(std::string* line);
  // One read() into the buffer after poll() said the fd is ready.
  void ReadChunk();
  void RunChecks(const std::function<void()>& check) const;
  int write_fd() const { return write_fd_.valid() ? write_fd_.get() : read_fd_.get(); }

  UniqueFd read_fd_;
  UniqueFd write_fd_;  // invalid when read_fd_ is a socket used both ways
  std::string peer_;
  LineChannelOptions options_;
  std::string buffer_;       // bytes read but not yet returned
  size_t scanned_ = 0;       // buffer_[0, scanned_) holds no '\n'
  bool discarding_ = false;  // inside an over-long line, dropping bytes up to its '\n'
  std::string excerpt_;      // the start of the over-long line
  bool eof_ = false;
};

}  // namespace storbed

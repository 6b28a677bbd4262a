// Newline-framed text over a stream fd (unix socket or pipe pair), the transport under
// both QMP and the agent link. Every wait polls in <=100 ms slices and runs a check
// callback between slices, so a dead QEMU or Ctrl-C ends it promptly.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "unique_fd.h"

namespace storbed {

using Clock = std::chrono::steady_clock;
// Longest single poll() in this folder; bounds the reaction time to Ctrl-C and deaths.
inline constexpr std::chrono::milliseconds kPollSlice{100};

// A system call failed on the channel; what() names the call, the peer and errno text.
class ChannelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Connects to a unix stream socket, retrying while it does not exist yet or refuses
// (QEMU creates it shortly after start). Runs check() between attempts. Throws
// ChannelError with the last errno once the deadline passes.
UniqueFd ConnectUnixSocket(const std::string& path, Clock::time_point deadline,
                           const std::function<void()>& check);

class LineChannel {
 public:
  enum class ReadStatus { kLine, kEof, kTimeout };

  // One bidirectional fd (socket) or a read and a write end (pipes). `peer` names the
  // other side in error messages.
  LineChannel(UniqueFd fd, std::string peer);
  LineChannel(UniqueFd read_fd, UniqueFd write_fd, std::string peer);
  LineChannel(LineChannel&&) = default;
  LineChannel& operator=(LineChannel&&) = default;

  // Writes line + '\n' completely. A closed peer is a ChannelError, never SIGPIPE.
  void WriteLine(const std::string& line, Clock::time_point deadline,
                 const std::function<void()>& check);
  // Reads one line without its '\n' into *line. Runs ThrowIfInterrupted and check()
  // (if set) between poll slices. kEof: the peer closed (a partial last line is dropped).
  ReadStatus ReadLine(std::string* line, Clock::time_point deadline,
                      const std::function<void()>& check);
  const std::string& peer() const { return peer_; }

 private:
  bool TakeBufferedLine(std::string* line);

  UniqueFd read_fd_;
  UniqueFd write_fd_;  // invalid when read_fd_ is a socket used both ways
  std::string peer_;
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace storbed

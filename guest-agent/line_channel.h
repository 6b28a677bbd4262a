// A stream of text lines in both directions: the virtio-serial port in a guest, stdin
// and stdout for the bare-metal agent, a socketpair in tests.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace storbed::agent {

// Longest request line the agent accepts; a job spec is a few hundred bytes.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;
// How much of an over-long line is kept for the error reply.
inline constexpr size_t kTooLongExcerptBytes = 256;

struct LineRead {
  enum class Status {
    Line,     // text is one line, without its '\n'
    TooLong,  // the line passed the limit and was discarded; text is its start
    End,      // the stream ended; text is empty
  };
  Status status = Status::End;
  std::string text;
};

class LineChannel {
 public:
  virtual ~LineChannel() = default;
  // Blocks for the next line. Throws SystemError when the stream fails.
  virtual LineRead ReadLine() = 0;
  // Writes `line` plus '\n' completely. Throws SystemError when the stream fails.
  virtual void WriteLine(const std::string& line) = 0;
};

// What a read() of 0 bytes means on this fd.
enum class ZeroRead {
  EndOfStream,  // pipes, sockets, files
  // A guest virtio-serial port returns 0 (and poll reports POLLHUP) while the host end
  // is not connected; the host may connect later, so the port never really ends.
  RetryLater,
};

struct FdChannelOptions {
  size_t max_line_bytes = kMaxLineBytes;
  ZeroRead zero_read = ZeroRead::EndOfStream;
  std::chrono::milliseconds retry_delay{50};
};

// A LineChannel over two file descriptors it does not own (they may be the same fd).
class FdLineChannel : public LineChannel {
 public:
  FdLineChannel(int read_fd, int write_fd, FdChannelOptions options = {});

  LineRead ReadLine() override;
  void WriteLine(const std::string& line) override;

 private:
  // Appends up to one chunk to buffer_. Returns false at end of stream.
  bool Fill();

  int read_fd_;
  int write_fd_;
  FdChannelOptions options_;
  std::string buffer_;       // bytes read but not yet returned
  size_t scanned_ = 0;       // buffer_[0, scanned_) holds no '\n'
  bool discarding_ = false;  // inside an over-long line, dropping bytes up to its '\n'
  std::string excerpt_;      // the start of the over-long line
};

}  // namespace storbed::agent

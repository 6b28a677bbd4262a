#include "line_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

namespace storbed {
namespace {

using namespace std::chrono_literals;
using Status = LineChannel::ReadStatus;

struct Pair {
  LineChannel channel;
  UniqueFd other;
};

Pair MakePair(LineChannelOptions options = {}) {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  return {LineChannel(UniqueFd(sv[0]), "test peer", std::move(options)), UniqueFd(sv[1])};
}

void WriteRaw(int fd, const std::string& s) {
  ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

// A pipe preloaded with `data` and closed for writing, read as the agent reads (blocking fd).
LineChannel PipeWith(const std::string& data, LineChannelOptions options = {}) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  EXPECT_EQ(::write(fds[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fds[1]);
  options.nonblocking = false;
  return LineChannel(UniqueFd(fds[0]), "pipe", std::move(options));
}

// Options with one change from the defaults (designated initializers would warn about
// the members left out under -Wextra).
template <typename Change>
LineChannelOptions Options(Change change) {
  LineChannelOptions options;
  change(options);
  return options;
}

std::string Next(LineChannel& channel, Status expected) {
  std::string line;
  EXPECT_EQ(channel.ReadLine(&line), expected);
  return line;
}

TEST(LineChannelTest, SplitsLinesAcrossAndWithinReads) {
  Pair p = MakePair();
  WriteRaw(p.other.get(), "one\ntw");
  std::string line;
  auto deadline = Clock::now() + 2s;
  ASSERT_EQ(p.channel.ReadLine(&line, deadline, nullptr), Status::kLine);
  EXPECT_EQ(line, "one");
  std::thread later([&] {
    std::this_thread::sleep_for(50ms);
    WriteRaw(p.other.get(), "o\nthree\n");
  });
  ASSERT_EQ(p.channel.ReadLine(&line, deadline, nullptr), Status::kLine);
  EXPECT_EQ(line, "two");
  ASSERT_EQ(p.channel.ReadLine(&line, deadline, nullptr), Status::kLine);
  EXPECT_EQ(line, "three");
  later.join();
}

TEST(LineChannelTest, TimeoutThenEofDropsAPartialLastLineByDefault) {
  Pair p = MakePair();
  std::string line;
  auto start = Clock::now();
  EXPECT_EQ(p.channel.ReadLine(&line, start + 250ms, nullptr), Status::kTimeout);
  EXPECT_GE(Clock::now() - start, 250ms);
  WriteRaw(p.other.get(), "last\npartial");
  p.other.reset();
  EXPECT_EQ(p.channel.ReadLine(&line, Clock::now() + 1s, nullptr), Status::kLine);
  EXPECT_EQ(p.channel.ReadLine(&line, Clock::now() + 1s, nullptr), Status::kEof);
}

TEST(LineChannelTest, CheckRunsWhileWaitingAndCanAbort) {
  int between = 0;
  LineChannelOptions options;
  options.between_slices = [&] { ++between; };
  Pair p = MakePair(std::move(options));
  int calls = 0;
  std::string line;
  EXPECT_THROW(p.channel.ReadLine(&line, Clock::now() + 5s,
                                  [&] {
                                    if (++calls == 3) throw std::runtime_error("dead");
                                  }),
               std::runtime_error);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(between, 3);  // and before the caller's check each time
}

TEST(LineChannelTest, WriteLineAppendsNewline) {
  Pair p = MakePair();
  p.channel.WriteLine("{\"a\":1}", Clock::now() + 1s, nullptr);
  char buf[32] = {};
  ASSERT_EQ(::read(p.other.get(), buf, sizeof(buf)), 8);
  EXPECT_STREQ(buf, "{\"a\":1}\n");
}

TEST(LineChannelTest, WriteToClosedPipeIsAnErrorNotSigpipe) {
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  LineChannel ch(UniqueFd(in[0]), UniqueFd(out[1]), "pipe agent");
  ::close(in[1]);
  ::close(out[0]);  // the reader is gone
  try {
    ch.WriteLine("x", Clock::now() + 1s, nullptr);
    FAIL() << "expected ChannelError";
  } catch (const ChannelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("write to pipe agent"), std::string::npos) << what;
    EXPECT_NE(what.find("Broken pipe"), std::string::npos) << what;
  }
}

TEST(LineChannelTest, StripsCrAndKeepsTheLastUnterminatedLineWhenAsked) {
  LineChannel channel = PipeWith("one\ntwo\r\n\nthree",
                                 Options([](auto& o) { o.keep_unterminated_last_line = true; }));
  EXPECT_EQ(Next(channel, Status::kLine), "one");
  EXPECT_EQ(Next(channel, Status::kLine), "two");
  EXPECT_EQ(Next(channel, Status::kLine), "");
  EXPECT_EQ(Next(channel, Status::kLine), "three");
  Next(channel, Status::kEof);
}

TEST(LineChannelTest, OverLongLineIsReportedOnceWithItsStartAndReadingGoesOn) {
  LineChannel channel = PipeWith(std::string(300, 'a') + "\nok\n" + std::string(50, 'b'),
                                 Options([](auto& o) { o.max_line_bytes = 20; }));
  EXPECT_EQ(Next(channel, Status::kTooLong), std::string(kTooLongExcerptBytes, 'a'));
  EXPECT_EQ(Next(channel, Status::kLine), "ok");
  // An over-long tail without '\n' is reported at end of stream.
  Next(channel, Status::kTooLong);
  Next(channel, Status::kEof);
}

TEST(LineChannelTest, LineOfExactlyTheLimitIsAccepted) {
  LineChannel channel =
      PipeWith(std::string(20, 'c') + "\n", Options([](auto& o) { o.max_line_bytes = 20; }));
  EXPECT_EQ(Next(channel, Status::kLine), std::string(20, 'c'));
}

TEST(LineChannelTest, AChannelWithoutAnFdIsAChannelErrorNotAHang) {
  LineChannel channel(UniqueFd(), "nothing", Options([](auto& o) { o.nonblocking = false; }));
  std::string line;
  EXPECT_THROW(channel.ReadLine(&line), ChannelError);
}

TEST(LineChannelTest, RetryLaterWaitsThroughZeroReadsUntilTheDeadline) {
  // A pipe whose writer is gone reads 0 at once, as a disconnected virtio-serial port does.
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[1]);
  LineChannel channel(UniqueFd(fds[0]), "port", Options([](auto& o) {
                        o.zero_read = ZeroRead::RetryLater;
                        o.retry_delay = 10ms;
                      }));
  std::string line;
  const auto start = Clock::now();
  EXPECT_EQ(channel.ReadLine(&line, start + 100ms), Status::kTimeout);
  EXPECT_GE(Clock::now() - start, 100ms);
}

}  // namespace
}  // namespace storbed

#include "line_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "errors.h"
#include "unique_fd.h"

namespace storbed::agent {
namespace {

// A pipe preloaded with `data` and closed for writing.
UniqueFd PipeWith(const std::string& data) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  EXPECT_EQ(::write(fds[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fds[1]);
  return UniqueFd(fds[0]);
}

TEST(FdLineChannel, SplitsLinesStripsCrAndReturnsTheLastUnterminatedLine) {
  UniqueFd in = PipeWith("one\ntwo\r\n\nthree");
  FdLineChannel channel(in.get(), -1);
  EXPECT_EQ(channel.ReadLine().text, "one");
  EXPECT_EQ(channel.ReadLine().text, "two");
  EXPECT_EQ(channel.ReadLine().text, "");
  const LineRead last = channel.ReadLine();
  EXPECT_EQ(last.status, LineRead::Status::Line);
  EXPECT_EQ(last.text, "three");
  EXPECT_EQ(channel.ReadLine().status, LineRead::Status::End);
}

TEST(FdLineChannel, OverLongLineIsReportedOnceWithItsStartAndReadingGoesOn) {
  UniqueFd in = PipeWith(std::string(100, 'a') + "\nok\n" + std::string(50, 'b'));
  FdLineChannel channel(in.get(), -1, {.max_line_bytes = 20});
  const LineRead too_long = channel.ReadLine();
  EXPECT_EQ(too_long.status, LineRead::Status::TooLong);
  EXPECT_EQ(too_long.text, std::string(100, 'a').substr(0, kTooLongExcerptBytes));
  EXPECT_EQ(channel.ReadLine().text, "ok");
  // An over-long tail without '\n' is reported at end of stream.
  EXPECT_EQ(channel.ReadLine().status, LineRead::Status::TooLong);
  EXPECT_EQ(channel.ReadLine().status, LineRead::Status::End);
}

TEST(FdLineChannel, LineOfExactlyTheLimitIsAccepted) {
  UniqueFd in = PipeWith(std::string(20, 'c') + "\n");
  FdLineChannel channel(in.get(), -1, {.max_line_bytes = 20});
  EXPECT_EQ(channel.ReadLine().status, LineRead::Status::Line);
}

TEST(FdLineChannel, WriteLineAppendsNewline) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  FdLineChannel channel(-1, write_end.get());
  channel.WriteLine("{\"type\":\"shutdown_ack\",\"v\":1}");
  char buffer[64] = {};
  ASSERT_GT(::read(read_end.get(), buffer, sizeof buffer - 1), 0);
  EXPECT_STREQ(buffer, "{\"type\":\"shutdown_ack\",\"v\":1}\n");
}

TEST(FdLineChannel, ReadErrorIsASystemError) {
  FdLineChannel channel(-1, -1);
  EXPECT_THROW(channel.ReadLine(), SystemError);
}

}  // namespace
}  // namespace storbed::agent

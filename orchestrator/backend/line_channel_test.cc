#include "backend/line_channel.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <thread>

namespace storbed {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

struct Pair {
  LineChannel channel;
  UniqueFd other;
};

Pair MakePair() {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  return {LineChannel(UniqueFd(sv[0]), "test peer"), UniqueFd(sv[1])};
}

void WriteRaw(int fd, const std::string& s) {
  ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

TEST(LineChannelTest, SplitsLinesAcrossAndWithinReads) {
  Pair p = MakePair();
  WriteRaw(p.other.get(), "one\ntw");
  std::string line;
  auto deadline = Clock::now() + 2s;
  ASSERT_EQ(p.channel.ReadLine(&line, deadline, nullptr), LineChannel::ReadStatus::kLine);
  EXPECT_EQ(line, "one");
  std::thread later([&] {
    std::this_thread::sleep_for(50ms);
    WriteRaw(p.other.get(), "o\nthree\n");
  });
  ASSERT_EQ(p.channel.ReadLine(&line, deadline, nullptr), LineChannel::ReadStatus::kLine);
  EXPECT_EQ(line, "two");
  ASSERT_EQ(p.channel.ReadLine(&line, deadline, nullptr), LineChannel::ReadStatus::kLine);
  EXPECT_EQ(line, "three");
  later.join();
}

TEST(LineChannelTest, TimeoutAndEof) {
  Pair p = MakePair();
  std::string line;
  auto start = Clock::now();
  EXPECT_EQ(p.channel.ReadLine(&line, start + 250ms, nullptr),
            LineChannel::ReadStatus::kTimeout);
  EXPECT_GE(Clock::now() - start, 250ms);
  WriteRaw(p.other.get(), "last\npartial");
  p.other.reset();
  EXPECT_EQ(p.channel.ReadLine(&line, Clock::now() + 1s, nullptr),
            LineChannel::ReadStatus::kLine);
  EXPECT_EQ(p.channel.ReadLine(&line, Clock::now() + 1s, nullptr),
            LineChannel::ReadStatus::kEof);
}

TEST(LineChannelTest, CheckRunsWhileWaitingAndCanAbort) {
  Pair p = MakePair();
  int calls = 0;
  std::string line;
  EXPECT_THROW(p.channel.ReadLine(&line, Clock::now() + 5s,
                                  [&] {
                                    if (++calls == 3) throw std::runtime_error("dead");
                                  }),
               std::runtime_error);
  EXPECT_EQ(calls, 3);
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
    EXPECT_THAT(e.what(), HasSubstr("write to pipe agent"));
    EXPECT_THAT(e.what(), HasSubstr("Broken pipe"));
  }
}

TEST(LineChannelTest, ConnectRetriesUntilTheSocketAppears) {
  std::string path = testing::TempDir() + "/lc-" + std::to_string(getpid()) + ".sock";
  std::filesystem::remove(path);
  UniqueFd listener;
  std::thread create([&] {
    std::this_thread::sleep_for(200ms);
    UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strcpy(a.sun_path, path.c_str());
    ASSERT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ASSERT_EQ(listen(fd.get(), 1), 0);
    listener = std::move(fd);
  });
  UniqueFd fd = ConnectUnixSocket(path, Clock::now() + 5s, nullptr);
  create.join();
  EXPECT_TRUE(fd.valid());
  std::filesystem::remove(path);
}

TEST(LineChannelTest, ConnectGivesUpAtTheDeadline) {
  std::string path = testing::TempDir() + "/never-" + std::to_string(getpid()) + ".sock";
  try {
    ConnectUnixSocket(path, Clock::now() + 200ms, nullptr);
    FAIL();
  } catch (const ChannelError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr("No such file"));
  }
}

}  // namespace
}  // namespace storbed

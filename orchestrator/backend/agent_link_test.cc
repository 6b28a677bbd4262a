#include "backend/agent_link.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace storbed {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// The agent side of a socketpair, driven by the test.
class FakeAgent {
 public:
  explicit FakeAgent(int fd) : fd_(fd) {}
  std::string ReadRequest() {
    std::string line;
    char c;
    while (::read(fd_.get(), &c, 1) == 1 && c != '\n') line += c;
    return line;
  }
  void Send(const std::string& raw) {
    ASSERT_EQ(::write(fd_.get(), raw.data(), raw.size()), static_cast<ssize_t>(raw.size()));
  }
  void Close() { fd_.reset(); }

 private:
  UniqueFd fd_;
};

struct Linked {
  AgentLink link;
  FakeAgent agent;
};

Linked MakeLinked() {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  return {AgentLink::FromSocket(UniqueFd(sv[0]), "fake agent"), FakeAgent(sv[1])};
}

HelloReply SampleHello() {
  HelloReply h;
  h.agent_version = "0.1.0";
  h.kernel_release = "6.1.0";
  h.devices.push_back(BlockDeviceInfo{.name = "vda", .path = "/dev/vda", .size_bytes = 1 << 20,
                                      .serial = "d0", .model = "", .logical_block_size = 512,
                                      .physical_block_size = 512, .rotational = false,
                                      .read_ahead_kb = 128, .nr_requests = 256,
                                      .max_sectors_kb = 1280, .scheduler = "none",
                                      .nr_hw_queues = 1});
  return h;
}

TEST(AgentLinkTest, NormalCallAndTranscript) {
  Linked l = MakeLinked();
  std::vector<std::pair<std::string, std::string>> transcript;
  l.link.SetTranscript([&](const std::string& dir, const std::string& line) {
    transcript.emplace_back(dir, line);
  });
  std::thread agent([&] {
    Message req = DecodeMessage(l.agent.ReadRequest());
    EXPECT_TRUE(std::holds_alternative<HelloRequest>(req));
    l.agent.Send(EncodeMessage(SampleHello()) + "\n");
  });
  Message reply = l.link.Call(HelloRequest{}, 2s, nullptr);
  agent.join();
  ASSERT_TRUE(std::holds_alternative<HelloReply>(reply));
  EXPECT_EQ(std::get<HelloReply>(reply).devices.at(0).serial, "d0");
  ASSERT_EQ(transcript.size(), 2u);
  EXPECT_EQ(transcript[0].first, "out");
  EXPECT_EQ(transcript[0].second, EncodeMessage(HelloRequest{}));
  EXPECT_EQ(transcript[1].first, "in");
}

TEST(AgentLinkTest, ErrorReplyIsReturnedAsIs) {
  Linked l = MakeLinked();
  std::thread agent([&] {
    l.agent.ReadRequest();
    l.agent.Send(EncodeMessage(ErrorReply{.message = "no such target", .request_type = "prepare",
                                          .raw = ""}) +
                 "\n");
  });
  Message reply = l.link.Call(PrepareRequest{.target = "/dev/vdz"}, 2s, nullptr);
  agent.join();
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(reply));
  EXPECT_EQ(std::get<ErrorReply>(reply).message, "no such target");
}

TEST(AgentLinkTest, TimeoutNamesRequestAndPoisonsTheLink) {
  Linked l = MakeLinked();
  auto start = Clock::now();
  try {
    l.link.Call(HelloRequest{}, 300ms, nullptr);
    FAIL();
  } catch (const AgentTimeoutError& e) {
    EXPECT_EQ(e.request_type(), "hello");
    EXPECT_THAT(e.what(), HasSubstr("did not answer hello within 300 ms"));
  }
  EXPECT_GE(Clock::now() - start, 300ms);
  EXPECT_THROW(l.link.Call(HelloRequest{}, 300ms, nullptr), AgentLinkError);
}

TEST(AgentLinkTest, HeartbeatsKeepALongCallAliveAndStayOutOfTheTranscript) {
  Linked l = MakeLinked();
  l.link.SetSilenceLimit(300ms);
  int transcript_lines = 0;
  l.link.SetTranscript([&](const std::string&, const std::string&) { ++transcript_lines; });
  std::thread agent([&] {
    l.agent.ReadRequest();
    for (int i = 1; i <= 7; ++i) {  // 700 ms of work, far past the silence limit
      std::this_thread::sleep_for(100ms);
      l.agent.Send(EncodeMessage(Heartbeat{i * 0.1}) + "\n");
    }
    l.agent.Send(EncodeMessage(ShutdownAck{}) + "\n");
  });
  const Message reply = l.link.Call(ShutdownRequest{}, 5s, nullptr);
  agent.join();
  EXPECT_TRUE(std::holds_alternative<ShutdownAck>(reply));
  EXPECT_EQ(transcript_lines, 2);
}

TEST(AgentLinkTest, SilenceAfterHeartbeatsIsAHangNamedLongBeforeTheTimeout) {
  Linked l = MakeLinked();
  l.link.SetSilenceLimit(300ms);
  std::thread agent([&] {
    l.agent.ReadRequest();
    for (int i = 1; i <= 2; ++i) {
      std::this_thread::sleep_for(100ms);
      l.agent.Send(EncodeMessage(Heartbeat{i * 0.1}) + "\n");
    }
  });
  const auto start = Clock::now();
  try {
    l.link.Call(ShutdownRequest{}, 30s, nullptr);
    FAIL();
  } catch (const AgentSilentError& e) {
    EXPECT_EQ(e.request_type(), "shutdown");
    EXPECT_STREQ(e.what(),
                 "the agent sent nothing for 0.3 s while answering shutdown (it sends a heartbeat "
                 "every 2 s; 2 came before the silence): the guest or its QEMU hangs");
  }
  EXPECT_LT(Clock::now() - start, 5s);
  agent.join();
  EXPECT_THROW(l.link.Call(HelloRequest{}, 300ms, nullptr), AgentLinkError);
}

TEST(AgentLinkTest, EofIsConnectionClosed) {
  Linked l = MakeLinked();
  std::thread agent([&] {
    l.agent.ReadRequest();
    l.agent.Close();
  });
  try {
    l.link.Call(ShutdownRequest{}, 2s, nullptr);
    FAIL();
  } catch (const AgentLinkError& e) {
    EXPECT_THAT(e.what(), HasSubstr("agent connection closed"));
    EXPECT_THAT(e.what(), HasSubstr("shutdown"));
  }
  agent.join();
}

TEST(AgentLinkTest, MalformedReplyKeepsRawText) {
  Linked l = MakeLinked();
  std::thread agent([&] {
    l.agent.ReadRequest();
    l.agent.Send("{\"type\": \"hello_reply\", oops\n");
  });
  try {
    l.link.Call(HelloRequest{}, 2s, nullptr);
    FAIL();
  } catch (const ProtocolError& e) {
    EXPECT_EQ(e.raw(), "{\"type\": \"hello_reply\", oops");
  }
  agent.join();
}

TEST(AgentLinkTest, RequestTypedLineIsAProtocolError) {
  Linked l = MakeLinked();
  std::thread agent([&] {
    l.agent.ReadRequest();
    l.agent.Send(EncodeMessage(HelloRequest{}) + "\n");
  });
  EXPECT_THROW(l.link.Call(HelloRequest{}, 2s, nullptr), ProtocolError);
  agent.join();
}

TEST(AgentLinkTest, CheckThrowingAbortsTheWait) {
  Linked l = MakeLinked();
  int calls = 0;
  auto start = Clock::now();
  struct QemuDied : std::runtime_error {
    QemuDied() : std::runtime_error("qemu died") {}
  };
  EXPECT_THROW(l.link.Call(HelloRequest{}, 30s,
                           [&] {
                             if (++calls == 3) throw QemuDied();
                           }),
               QemuDied);
  EXPECT_LT(Clock::now() - start, 1s);  // <=100 ms slices, not the 30 s timeout
}

TEST(AgentLinkTest, PipePair) {
  int to_agent[2], from_agent[2];
  ASSERT_EQ(pipe(to_agent), 0);
  ASSERT_EQ(pipe(from_agent), 0);
  AgentLink link = AgentLink::FromPipes(UniqueFd(from_agent[0]), UniqueFd(to_agent[1]),
                                        "local agent");
  FakeAgent in(to_agent[0]);
  FakeAgent out(from_agent[1]);
  std::thread agent([&] {
    in.ReadRequest();
    out.Send(EncodeMessage(ShutdownAck{}) + "\n");
  });
  Message reply = link.Call(ShutdownRequest{}, 2s, nullptr);
  agent.join();
  EXPECT_TRUE(std::holds_alternative<ShutdownAck>(reply));
}

}  // namespace
}  // namespace storbed

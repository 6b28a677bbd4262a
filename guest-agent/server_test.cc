#include "server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <future>
#include <thread>

#include "unique_fd.h"
#include "version.h"

namespace storbed::agent {
namespace {

// Records what the server asked of the job runner.
struct FakeRunner {
  std::vector<std::string> calls;
  std::string error;  // when set, run() throws JobError with this text
  std::chrono::milliseconds takes{0};  // how long each run takes
  size_t traced_ios = 0;               // IOs a traced job hands back
};

ServerOptions FakeOptions(FakeRunner& runner) {
  ServerOptions options;
  options.layer = kGuestLayer;
  options.modules_loaded = {"virtio_blk", "nvme"};
  options.hooks.prepare = [&runner](const PrepareRequest& r, const std::string& layer) {
    runner.calls.push_back("prepare " + r.target + " @ " + layer);
    return Prepared{r.target, 0.25, "sync, drop_caches=3"};
  };
  options.hooks.run = [&runner](const JobSpec& spec, const std::string& layer,
                                std::vector<AgentTracedIo>* traced) {
    runner.calls.push_back("run " + spec.name + " @ " + layer);
    if (spec.trace)
      for (size_t i = 0; i < runner.traced_ios; ++i) {
        AgentTracedIo io;
        io.offset = i * 4096;
        io.bytes = 4096;
        io.submit_ns = 1000000 + i;
        io.seen_ns = io.submit_ns + 50000;
        traced->push_back(io);
      }
    std::this_thread::sleep_for(runner.takes);
    if (!runner.error.empty()) throw JobError(runner.error);
    JobResult result;
    result.job = spec.name;
    result.target = spec.target;
    result.ios = 42;
    result.block.layer = layer;
    return result;
  };
  options.hooks.list_devices = [] {
    BlockDeviceInfo vda;
    vda.name = "vda";
    vda.path = "/dev/vda";
    vda.serial = "storbed-d0";
    return std::vector<BlockDeviceInfo>{vda};
  };
  options.hooks.kernel_release = [] { return std::string("6.1.0-test"); };
  options.hooks.monotonic_ns = [] { return uint64_t{123456789}; };
  options.hooks.uptime_s = [] { return 4.5; };
  return options;
}

// The server on one end of a socketpair, in its own thread; the test is the host.
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    host_fd_ = UniqueFd(fds[0]);
    agent_fd_ = UniqueFd(fds[1]);
    host_ = std::make_unique<LineChannel>(UniqueFd(::dup(host_fd_.get())), "agent",
                                          AgentChannelOptions());
  }
  void TearDown() override {
    if (serving_.valid()) {
      ::shutdown(host_fd_.get(), SHUT_WR);  // ends the stream so Serve returns
      serving_.wait();
    }
  }

  void StartServer() {
    serving_ = std::async(std::launch::async, [this] {
      LineChannel channel(UniqueFd(::dup(agent_fd_.get())), "host", AgentChannelOptions());
      ServerOptions options = FakeOptions(runner_);
      options.heartbeat_period = heartbeat_period_;
      options.boot = boot_;
      Server server(options);
      return server.Serve(channel);
    });
  }

  // Sends one line and decodes the one reply.
  Message Ask(const std::string& line) {
    host_->WriteLine(line);
    std::string reply;
    EXPECT_EQ(host_->ReadLine(&reply), LineChannel::ReadStatus::kLine);
    return DecodeMessage(reply);
  }

  ErrorReply AskForError(const std::string& line) {
    const Message reply = Ask(line);
    EXPECT_TRUE(std::holds_alternative<ErrorReply>(reply)) << EncodeMessage(reply);
    return std::holds_alternative<ErrorReply>(reply) ? std::get<ErrorReply>(reply) : ErrorReply{};
  }

  FakeRunner runner_;
  std::optional<GuestBoot> boot_;
  std::chrono::milliseconds heartbeat_period_ = kHeartbeatPeriod;
  UniqueFd host_fd_, agent_fd_;
  std::unique_ptr<LineChannel> host_;
  std::future<ServeEnd> serving_;
};

TEST_F(ServerTest, HelloReportsVersionKernelDevicesClockAndModules) {
  StartServer();
  const Message reply = Ask(EncodeMessage(HelloRequest{}));
  ASSERT_TRUE(std::holds_alternative<HelloReply>(reply)) << EncodeMessage(reply);
  const HelloReply& hello = std::get<HelloReply>(reply);
  EXPECT_EQ(hello.agent_version, kStorbedVersion);
  EXPECT_EQ(hello.kernel_release, "6.1.0-test");
  ASSERT_EQ(hello.devices.size(), 1u);
  EXPECT_EQ(hello.devices[0].serial, "storbed-d0");
  EXPECT_EQ(hello.monotonic_ns, 123456789u);
  EXPECT_EQ(hello.modules_loaded, (std::vector<std::string>{"virtio_blk", "nvme"}));
  EXPECT_FALSE(hello.boot.has_value()) << "an agent that is not /init has no boot to report";
}

// A traced job's IOs come after its result, in chunks the host asks for one by one; the
// next job's run replaces them.
TEST_F(ServerTest, ATracedJobsIosAreFetchedInChunksAfterItsResult) {
  runner_.traced_ios = kTraceChunkIos + 10;
  StartServer();
  JobSpec job;
  job.name = "traced";
  job.trace = true;
  ASSERT_TRUE(std::holds_alternative<ResultReply>(Ask(EncodeMessage(RunRequest{job}))));
  size_t from = 0, total = 0;
  std::vector<AgentTracedIo> got;
  do {
    const Message reply = Ask(EncodeMessage(TraceFetchRequest{from}));
    ASSERT_TRUE(std::holds_alternative<TraceChunkReply>(reply)) << EncodeMessage(reply);
    const TracedIoChunkView view = ParseTracedIoChunk(std::get<TraceChunkReply>(reply).chunk);
    EXPECT_EQ(view.from, from);
    total = view.total;
    got.insert(got.end(), view.ios.begin(), view.ios.end());
    from += view.ios.size();
  } while (from < total);
  EXPECT_EQ(got.size(), kTraceChunkIos + 10);
  EXPECT_EQ(got.back().offset, (kTraceChunkIos + 9) * 4096);
  EXPECT_NE(AskForError(EncodeMessage(TraceFetchRequest{total + 1})).message.find("has 4106 IOs"),
            std::string::npos);
  job.trace = false;
  ASSERT_TRUE(std::holds_alternative<ResultReply>(Ask(EncodeMessage(RunRequest{job}))));
  const Message empty = Ask(EncodeMessage(TraceFetchRequest{0}));
  ASSERT_TRUE(std::holds_alternative<TraceChunkReply>(empty));
  EXPECT_EQ(ParseTracedIoChunk(std::get<TraceChunkReply>(empty).chunk).total, 0u);
}

TEST_F(ServerTest, HelloAsInitReportsTheBootWithTheUptimeOfThisHello) {
  boot_ = GuestBoot{.init_start_s = 2.5, .modules_s = 0.5, .devices_s = 0.25};
  StartServer();
  const Message reply = Ask(EncodeMessage(HelloRequest{}));
  ASSERT_TRUE(std::holds_alternative<HelloReply>(reply)) << EncodeMessage(reply);
  const HelloReply& hello = std::get<HelloReply>(reply);
  ASSERT_TRUE(hello.boot.has_value());
  EXPECT_EQ(hello.boot->init_start_s, 2.5);
  EXPECT_EQ(hello.boot->modules_s, 0.5);
  EXPECT_EQ(hello.boot->devices_s, 0.25);
  EXPECT_EQ(hello.boot->uptime_s, 4.5) << "taken from the uptime hook at the hello, not 0";
}

TEST_F(ServerTest, ALongRunSendsHeartbeatsBeforeItsOneResult) {
  runner_.takes = std::chrono::milliseconds(450);
  heartbeat_period_ = std::chrono::milliseconds(100);
  StartServer();
  JobSpec job;
  job.name = "slow";
  host_->WriteLine(EncodeMessage(RunRequest{job}));
  std::vector<double> beats;
  Message reply;
  for (;;) {
    std::string line;
    ASSERT_EQ(host_->ReadLine(&line), LineChannel::ReadStatus::kLine);
    reply = DecodeMessage(line);
    const auto* beat = std::get_if<Heartbeat>(&reply);
    if (!beat) break;
    beats.push_back(beat->elapsed_s);
  }
  ASSERT_TRUE(std::holds_alternative<ResultReply>(reply)) << EncodeMessage(reply);
  // 450 ms at one beat per 100 ms: four, give or take a slow thread start.
  EXPECT_GE(beats.size(), 2u);
  EXPECT_LE(beats.size(), 5u);
  EXPECT_TRUE(std::is_sorted(beats.begin(), beats.end()));
  EXPECT_GT(beats.front(), 0.05);
  // A quick request after it gets its reply and no heartbeat.
  EXPECT_TRUE(std::holds_alternative<HelloReply>(Ask(EncodeMessage(HelloRequest{}))));
}

TEST_F(ServerTest, UnknownTypeIsAnErrorWithTheRawLine) {
  StartServer();
  const std::string line = R"({"type":"dance","v":4})";
  const ErrorReply error = AskForError(line);
  EXPECT_EQ(error.raw, line);
  EXPECT_EQ(error.request_type, "");
  EXPECT_NE(error.message.find("dance"), std::string::npos) << error.message;
}

TEST_F(ServerTest, MalformedJsonIsAnErrorAndTheServerKeepsServing) {
  StartServer();
  const ErrorReply error = AskForError("{not json");
  EXPECT_EQ(error.raw, "{not json");
  EXPECT_TRUE(std::holds_alternative<HelloReply>(Ask(EncodeMessage(HelloRequest{}))));
}

TEST_F(ServerTest, WrongProtocolVersionIsAnError) {
  StartServer();
  const ErrorReply error = AskForError(R"({"type":"hello","v":99})");
  EXPECT_NE(error.message.find("99"), std::string::npos) << error.message;
}

TEST_F(ServerTest, AgentToHostMessageIsAnErrorNamingItsType) {
  StartServer();
  const std::string line = EncodeMessage(ShutdownAck{});
  const ErrorReply error = AskForError(line);
  EXPECT_EQ(error.request_type, "shutdown_ack");
  EXPECT_EQ(error.raw, line);
}

TEST_F(ServerTest, RunReturnsTheRunnersResultWithTheServersLayer) {
  StartServer();
  JobSpec job;
  job.name = "seq-read";
  job.target = "/dev/vda";
  const Message reply = Ask(EncodeMessage(RunRequest{job}));
  ASSERT_TRUE(std::holds_alternative<ResultReply>(reply)) << EncodeMessage(reply);
  const JobResult& result = std::get<ResultReply>(reply).result;
  EXPECT_EQ(result.job, "seq-read");
  EXPECT_EQ(result.ios, 42u);
  EXPECT_EQ(result.block.layer, kGuestLayer);
  EXPECT_EQ(runner_.calls, (std::vector<std::string>{"run seq-read @ guest block layer"}));
}

TEST_F(ServerTest, PrepareReturnsWhatTheRunnerDid) {
  StartServer();
  const Message reply = Ask(EncodeMessage(PrepareRequest{"/dev/vdb", CacheState::Cold}));
  ASSERT_TRUE(std::holds_alternative<Prepared>(reply)) << EncodeMessage(reply);
  EXPECT_EQ(std::get<Prepared>(reply).target, "/dev/vdb");
  EXPECT_EQ(std::get<Prepared>(reply).steps, "sync, drop_caches=3");
}

TEST_F(ServerTest, RunnerJobErrorBecomesAnErrorReplyWithItsText) {
  runner_.error = "cannot open /dev/vdz: No such file or directory";
  StartServer();
  JobSpec job;
  job.name = "j";
  job.target = "/dev/vdz";
  const ErrorReply error = AskForError(EncodeMessage(RunRequest{job}));
  EXPECT_EQ(error.message, runner_.error);
  EXPECT_EQ(error.request_type, "run");
  EXPECT_EQ(error.raw, "");
  // Still serving.
  EXPECT_TRUE(std::holds_alternative<HelloReply>(Ask(EncodeMessage(HelloRequest{}))));
}

TEST_F(ServerTest, ShutdownIsAcknowledgedAndServeReturns) {
  StartServer();
  EXPECT_TRUE(std::holds_alternative<ShutdownAck>(Ask(EncodeMessage(ShutdownRequest{}))));
  ASSERT_EQ(serving_.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(serving_.get(), ServeEnd::Shutdown);
}

TEST_F(ServerTest, EndOfStreamWithoutShutdownEndsServe) {
  StartServer();
  ::shutdown(host_fd_.get(), SHUT_WR);
  ASSERT_EQ(serving_.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(serving_.get(), ServeEnd::EndOfStream);
}

TEST_F(ServerTest, OverLongLineIsAnErrorAndTheNextLineIsAnswered) {
  StartServer();
  // Written from a thread: the socket buffer is smaller than the line.
  std::thread writer([this] {
    host_->WriteLine(std::string(kMaxLineBytes + 10, 'x'));
    host_->WriteLine(EncodeMessage(HelloRequest{}));
  });
  std::string first, second;
  host_->ReadLine(&first);
  host_->ReadLine(&second);
  writer.join();
  const Message error = DecodeMessage(first);
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(error)) << first;
  EXPECT_NE(std::get<ErrorReply>(error).message.find("longer than"), std::string::npos);
  EXPECT_EQ(std::get<ErrorReply>(error).raw, std::string(kTooLongExcerptBytes, 'x'));
  EXPECT_TRUE(std::holds_alternative<HelloReply>(DecodeMessage(second)));
}

TEST_F(ServerTest, BlankLinesGetNoReply) {
  StartServer();
  host_->WriteLine("");
  host_->WriteLine("  ");
  EXPECT_TRUE(std::holds_alternative<HelloReply>(Ask(EncodeMessage(HelloRequest{}))));
}

}  // namespace
}  // namespace storbed::agent

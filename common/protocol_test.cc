#include "protocol.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(ProtocolTest, RunRequestRoundTrips) {
  JobSpec job;
  job.name = "rand";
  job.target = "/dev/vda";
  job.pattern = Pattern::Gappy;
  job.engine = Engine::IoUring;
  job.bs = 16384;
  job.iodepth = 32;
  job.reap = Reap::Poll;
  job.gappy_read = 2;
  job.gappy_skip = 3;
  job.direct = false;
  const std::string line = EncodeMessage(RunRequest{job});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const Message m = DecodeMessage(line);
  ASSERT_TRUE(std::holds_alternative<RunRequest>(m));
  const JobSpec& back = std::get<RunRequest>(m).job;
  EXPECT_EQ(back.name, "rand");
  EXPECT_EQ(back.pattern, Pattern::Gappy);
  EXPECT_EQ(back.engine, Engine::IoUring);
  EXPECT_EQ(back.bs, 16384u);
  EXPECT_EQ(back.iodepth, 32u);
  EXPECT_EQ(back.reap, Reap::Poll);
  EXPECT_EQ(back.gappy_skip, 3u);
  EXPECT_FALSE(back.direct);
}

TEST(ProtocolTest, HelloReplyRoundTrips) {
  HelloReply hello;
  hello.agent_version = "0.1.0";
  hello.kernel_release = "6.1.0-57-amd64";
  hello.monotonic_ns = 123456789;
  BlockDeviceInfo d;
  d.name = "vda";
  d.path = "/dev/vda";
  d.size_bytes = 64 << 20;
  d.serial = "storbed-d0";
  d.nr_hw_queues = 2;
  hello.devices.push_back(d);
  hello.os_release = {"Debian GNU/Linux 12 (bookworm)", "12"};
  const Message m = DecodeMessage(EncodeMessage(hello));
  const auto& back = std::get<HelloReply>(m);
  EXPECT_EQ(back.kernel_release, "6.1.0-57-amd64");
  EXPECT_EQ(back.os_release.pretty_name, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(back.os_release.version_id, "12");
  ASSERT_EQ(back.devices.size(), 1u);
  EXPECT_EQ(back.devices[0].serial, "storbed-d0");
  EXPECT_EQ(back.devices[0].nr_hw_queues, 2u);
  EXPECT_EQ(back.monotonic_ns, 123456789u);
  EXPECT_FALSE(back.boot.has_value()) << "a hello without boot times decodes without them";
}

// Found by protocol_fuzz: a float where a whole number belongs was cast (undefined out of
// range); it is a bad message now.
TEST(ProtocolTest, AFloatWhereAWholeNumberBelongsIsRefused) {
  HelloReply r;
  r.agent_version = "0.1.0";
  nlohmann::json j = nlohmann::json::parse(EncodeMessage(r));
  j["monotonic_ns"] = 1.23e106;
  EXPECT_THROW(DecodeMessage(j.dump()), std::exception);
  j["monotonic_ns"] = 1234567890137ull;
  EXPECT_EQ(std::get<HelloReply>(DecodeMessage(j.dump())).monotonic_ns, 1234567890137ull);
}

// Found by protocol_fuzz: a version out of int's range escaped as another exception.
TEST(ProtocolTest, AVersionOutOfRangeIsAnotherVersion) {
  try {
    DecodeMessage(R"({"type":"hello_reply","v":4000000000000000000})");
    FAIL() << "decoded";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("protocol version 4000000000000000000 is not supported"),
              std::string::npos)
        << e.what();
  }
}

TEST(ProtocolTest, HelloReplyCarriesTheGuestBootBreakdown) {
  HelloReply hello;
  hello.agent_version = "0.1.0";
  hello.kernel_release = "6.1.0-57-amd64";
  hello.boot = GuestBoot{.init_start_s = 2.5, .modules_s = 0.25, .devices_s = 0.125, .uptime_s = 3};
  const auto back = std::get<HelloReply>(DecodeMessage(EncodeMessage(hello)));
  ASSERT_TRUE(back.boot.has_value());
  EXPECT_EQ(back.boot->init_start_s, 2.5);
  EXPECT_EQ(back.boot->modules_s, 0.25);
  EXPECT_EQ(back.boot->devices_s, 0.125);
  EXPECT_EQ(back.boot->uptime_s, 3);
}

TEST(ProtocolTest, HelloReplyWithAnIncompleteBootIsABadMessage) {
  HelloReply hello;
  hello.boot = GuestBoot{};
  nlohmann::json j = nlohmann::json::parse(EncodeMessage(hello));
  j["boot"].erase("devices_s");
  try {
    DecodeMessage(j.dump());
    FAIL() << "expected a ProtocolError for a boot without devices_s";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("devices_s"), std::string::npos) << e.what();
  }
}

TEST(ProtocolTest, ResultRoundTripsWithBlockStats) {
  JobResult r;
  r.job = "seq";
  r.target = "/dev/vda";
  r.ios = 10;
  r.bytes = 40960;
  r.latency.p99_us = 12.5;
  r.block = UnavailableBlockStats("no block device under /tmp/x: tmpfs");
  r.warnings = {"w"};
  r.reap = "poll";
  r.buffer_pieces = {.buffers = 64,
                     .median_pieces = 128.5,
                     .max_pieces = 256,
                     .over_max_segments = 3,
                     .max_segments = 254};
  const auto back = std::get<ResultReply>(DecodeMessage(EncodeMessage(ResultReply{r}))).result;
  EXPECT_EQ(back.ios, 10u);
  EXPECT_DOUBLE_EQ(back.latency.p99_us, 12.5);
  EXPECT_FALSE(back.block.available);
  EXPECT_EQ(back.block.reason, "no block device under /tmp/x: tmpfs");
  EXPECT_EQ(back.warnings, std::vector<std::string>{"w"});
  EXPECT_EQ(back.reap, "poll");
  EXPECT_EQ(back.buffer_pieces.buffers, 64u);
  EXPECT_DOUBLE_EQ(back.buffer_pieces.median_pieces, 128.5);
  EXPECT_EQ(back.buffer_pieces.max_pieces, 256u);
  EXPECT_EQ(back.buffer_pieces.over_max_segments, 3u);
  EXPECT_EQ(back.buffer_pieces.max_segments, 254u);
  // A result from before buffer_pieces reads as not measured.
  nlohmann::json old = r;
  old.erase("buffer_pieces");
  EXPECT_EQ(old.get<JobResult>().buffer_pieces.buffers, 0u);
}

TEST(ProtocolTest, EveryTypeNameRoundTrips) {
  const Message all[] = {HelloRequest{}, PrepareRequest{"/dev/vda", CacheState::Cold},
                         Prepared{"/dev/vda", 0.5, "sync"}, ErrorReply{"bad", "run", "x"},
                         ShutdownRequest{}, ShutdownAck{}, Heartbeat{2.5}};
  for (const auto& m : all) EXPECT_EQ(MessageType(DecodeMessage(EncodeMessage(m))), MessageType(m));
}

struct Bad {
  const char* line;
  const char* message_prefix;
};

class ProtocolRejects : public ::testing::TestWithParam<Bad> {};

TEST_P(ProtocolRejects, WithTypedErrorKeepingTheRawLine) {
  try {
    DecodeMessage(GetParam().line);
    FAIL() << "accepted " << GetParam().line;
  } catch (const ProtocolError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(GetParam().message_prefix, 0), 0u) << e.what();
    EXPECT_EQ(e.raw(), GetParam().line);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ProtocolRejects,
    ::testing::Values(Bad{"", "malformed JSON"}, Bad{"{\"type\":\"hello\"", "malformed JSON"},
                    Bad{"[1,2]", "message is not a JSON object"},
                    Bad{"{\"v\":4}", "message has no string field 'type'"},
                    Bad{"{\"type\":\"hello\"}", "message has no integer field 'v'"},
                    Bad{"{\"type\":\"hello\",\"v\":1}", "protocol version 1 is not supported"},
                    Bad{"{\"type\":\"hello\",\"v\":2}", "protocol version 2 is not supported"},
                    Bad{"{\"type\":\"hello\",\"v\":3}", "protocol version 3 is not supported"},
                    Bad{"{\"type\":\"reboot\",\"v\":4}", "bad 'reboot' message: unknown message type"},
                    Bad{"{\"type\":\"run\",\"v\":4}", "bad 'run' message"},
                    Bad{"{\"type\":\"run\",\"v\":4,\"job\":{\"name\":\"a\",\"target\":\"/dev/vda\","
                        "\"pattern\":\"spiral\",\"rw\":\"read\",\"engine\":\"psync\",\"bs\":4096,"
                        "\"iodepth\":1}}",
                        "bad 'run' message: unknown pattern 'spiral' (allowed: sequential, random, "
                        "gappy, strided)"},
                    Bad{"{\"type\":\"run\",\"v\":4,\"job\":{\"name\":\"a\",\"target\":\"/dev/vda\","
                        "\"pattern\":\"random\",\"rw\":\"read\",\"engine\":\"psync\",\"bs\":100,"
                        "\"iodepth\":1}}",
                        "bad 'run' message: bs must be a nonzero multiple of 512"},
                    Bad{"{\"type\":\"run\",\"v\":4,\"job\":{\"name\":\"a\",\"target\":\"/dev/vda\","
                        "\"pattern\":\"random\",\"rw\":\"read\",\"engine\":\"psync\",\"bs\":4096,"
                        "\"iodepth\":1,\"cache\":\"keep\",\"invalidate_each_pass\":true}}",
                        "bad 'run' message: invalidate_each_pass needs cache cold or cold-global "
                        "(the first pass starts cold like the others), got keep"}),
    [](const ::testing::TestParamInfo<Bad>& info) { return "case" + std::to_string(info.index); });

}  // namespace
}  // namespace storbed

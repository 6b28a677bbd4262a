#include "io_trace.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

AgentTracedIo Io(uint64_t offset, uint64_t submit) {
  AgentTracedIo io;
  io.offset = offset;
  io.bytes = 4096;
  io.queued_ns = submit - 3000;
  io.submit_ns = submit;
  io.seen_ns = submit + 90000;
  io.block.at[int(BlockEventKind::BioQueue)] = submit + 2000;
  io.block.at[int(BlockEventKind::RqIssue)] = submit + 5000;
  io.block.at[int(BlockEventKind::RqComplete)] = submit + 85000;
  io.block.requests = 1;
  io.state = JoinState::Joined;
  return io;
}

TEST(IoTrace, ChunksCarryEveryFieldAndUnseenTimesStayUnseen) {
  std::vector<AgentTracedIo> ios = {Io(0, 1000000000), Io(4096, 1000100000), Io(8192, 1000200000)};
  ios[1].write = true;
  ios[1].block.shared = true;
  ios[2].state = JoinState::Ambiguous;
  const nlohmann::json chunk = TracedIoChunk(ios, 1, 5);
  EXPECT_EQ(chunk["from"], 1);
  EXPECT_EQ(chunk["total"], 3);
  EXPECT_EQ(chunk["ios"].size(), 2u);
  const TracedIoChunkView back = ParseTracedIoChunk(nlohmann::json::parse(chunk.dump()));
  ASSERT_EQ(back.ios.size(), 2u);
  EXPECT_EQ(back.ios[0], ios[1]);
  EXPECT_EQ(back.ios[1], ios[2]);
  EXPECT_EQ(back.ios[0].block.At(BlockEventKind::GetRq), 0u);
}

TEST(IoTrace, AChunkThatDoesNotParseIsAnErrorNotFewerIos) {
  std::vector<AgentTracedIo> ios = {Io(0, 10)};
  nlohmann::json chunk = TracedIoChunk(ios, 0, 1);
  chunk["ios"][0].erase(3);
  EXPECT_THROW(ParseTracedIoChunk(chunk), IoTraceChunkError);
  chunk = TracedIoChunk(ios, 0, 1);
  chunk["total"] = 0;
  EXPECT_THROW(ParseTracedIoChunk(chunk), IoTraceChunkError);
  EXPECT_THROW(ParseTracedIoChunk(nlohmann::json::object()), IoTraceChunkError);
}

// A full chunk stays under the protocol's 1 MiB line with times of a long-running host.
TEST(IoTrace, AFullChunkFitsTheProtocolsLine) {
  std::vector<AgentTracedIo> ios;
  for (size_t i = 0; i < kTraceChunkIos; ++i) {
    AgentTracedIo io = Io(uint64_t(1) << 40, 900000000000000ull + i * 1000000);
    io.seen_ns = io.submit_ns + 999999999;
    ios.push_back(io);
  }
  EXPECT_LT(TracedIoChunk(ios, 0, kTraceChunkIos).dump().size(), size_t(1) << 20);
}

TEST(IoTrace, SummaryRoundTrips) {
  IoTraceSummary s;
  s.layer = "guest block layer";
  s.disk = "vda";
  s.major = 254;
  s.ios = 10;
  s.joined = 9;
  s.missing = 1;
  s.complete = false;
  s.why_incomplete = "3 events lost";
  EXPECT_EQ(nlohmann::json(s).get<IoTraceSummary>(), s);
}

}  // namespace
}  // namespace storbed

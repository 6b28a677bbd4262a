// The standalone agent's trace file (--trace-out): read whole, or refused as cut short.
#include "execute/trace_record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace storbed {
namespace {

class AgentTraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("storbed-trace-file-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    for (uint64_t i = 0; i < 10; ++i) {
      AgentTracedIo io;
      io.offset = i * 4096;
      io.bytes = 4096;
      io.queued_ns = io.submit_ns = 1000 + i;
      io.seen_ns = 2000 + i;
      ios_.push_back(io);
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The file as the agent writes it: one chunk a line, `lines` of them.
  std::string Write(const std::vector<std::string>& lines) {
    const std::string path = dir_ / "ios.jsonl";
    std::ofstream out(path);
    for (const std::string& l : lines) out << l << "\n";
    return path;
  }
  std::string Chunk(size_t from, size_t count) { return TracedIoChunk(ios_, from, count).dump(); }
  std::filesystem::path dir_;
  std::vector<AgentTracedIo> ios_;
};

TEST_F(AgentTraceFileTest, AWholeFileGivesEveryIo) {
  const auto read = ReadAgentTraceFile(Write({Chunk(0, 4), Chunk(4, 6)}));
  ASSERT_EQ(read.size(), ios_.size());
  EXPECT_EQ(read[7].offset, 7u * 4096);
}

TEST_F(AgentTraceFileTest, AFileCutShortIsAnErrorNeverFewerIos) {
  // The last chunk missing: the chunks say 10 IOs, the file holds 4.
  try {
    ReadAgentTraceFile(Write({Chunk(0, 4)}));
    FAIL() << "a file holding 4 of 10 IOs was read as complete";
  } catch (const IoTraceChunkError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 4 of 10 IOs"), std::string::npos) << e.what();
  }
  // A line cut in the middle (a full disk, a killed agent).
  const std::string second = Chunk(4, 6);
  EXPECT_THROW(ReadAgentTraceFile(Write({Chunk(0, 4), second.substr(0, second.size() / 2)})),
               IoTraceChunkError);
  // A chunk skipped.
  EXPECT_THROW(ReadAgentTraceFile(Write({Chunk(0, 4), Chunk(6, 4)})), IoTraceChunkError);
  // Empty, and missing.
  EXPECT_THROW(ReadAgentTraceFile(Write({})), IoTraceChunkError);
  EXPECT_THROW(ReadAgentTraceFile((dir_ / "none").string()), std::runtime_error);
}

}  // namespace
}  // namespace storbed

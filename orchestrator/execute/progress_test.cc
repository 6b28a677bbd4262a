#include "execute/progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace storbed {
namespace {

TEST(ProgressTest, LinesSayWhichRunOfHowManyWhatItDoesAndTheEta) {
  std::ostringstream out;
  LogSink sink(out);
  size_t done = 0;
  Progress p(ProgressMode::Lines, sink, 4, 100, [&] { return done; });
  p.Booting("virtio-blk-m2-b1");
  p.RunStarted("001-virtio-blk-r", 5);
  const std::string text = out.str();
  EXPECT_NE(text.find("[1/4] virtio-blk-m2-b1 | booting 0.0 s | ETA 1m40s\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[1/4] 001-virtio-blk-r | IO 0.0/5 s | ETA 1m40s\n"), std::string::npos)
      << text;
  // Once runs finish, the ETA is the time they took scaled to the runs left.
  done = 2;
  const auto later = Progress::Clock::now() + std::chrono::seconds(30);
  const std::string line = p.Line(later);
  EXPECT_NE(line.find("[3/4] 001-virtio-blk-r | IO 30.0/5 s | ETA 30s"), std::string::npos)
      << line;
  done = 4;
  EXPECT_NE(p.Line(later).find("[4/4]"), std::string::npos);
  EXPECT_NE(p.Line(later).find("ETA 0s"), std::string::npos);
}

TEST(ProgressTest, OnATerminalLogLinesGoOverTheStatusWhichIsDrawnAgainBelow) {
  std::ostringstream out;
  LogSink sink(out);
  {
    Progress p(ProgressMode::Terminal, sink, 2, 10, [] { return size_t{0}; });
    p.RunStarted("001-nvme-r", 0);
    sink.WriteLine("a log line\n");
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("\r\033[Ka log line\n[1/2] 001-nvme-r | IO "), std::string::npos) << text;
  // The status is erased when the progress ends.
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");
}

TEST(ProgressTest, QuietWritesNothing) {
  std::ostringstream out;
  LogSink sink(out);
  Progress p(ProgressMode::Quiet, sink, 2, 10, [] { return size_t{0}; });
  p.Booting("nvme");
  p.RunStarted("001-nvme-r", 0);
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressTest, DurationsReadAsPeopleWriteThem) {
  EXPECT_EQ(FormatDuration(35.4), "35s");
  EXPECT_EQ(FormatDuration(250), "4m10s");
  EXPECT_EQ(FormatDuration(3720), "1h02m");
  EXPECT_EQ(FormatDuration(-5), "0s");
}

}  // namespace
}  // namespace storbed

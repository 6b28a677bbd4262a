#include "reports/timelines.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace storbed {
namespace {

TEST(TimelinesTest, OneLinePerTimelineWithItsFigures) {
  Timeline inflight{"guest.vda.inflight", "requests", {}, {}};
  inflight.Add(0, 30);
  inflight.Add(0.01, 32);
  inflight.Add(0.02, 34);
  const Timeline empty{"qemu.d0.depth", "requests", {}, {}};
  EXPECT_EQ(RenderTimelineSummary({inflight, empty}),
            "guest.vda.inflight                3 samples  min 30.00  mean 32.00  max 34.00 "
            "requests\n"
            "qemu.d0.depth                     0 samples\n");
  EXPECT_EQ(RenderTimelineSummary({}), "");
}

TEST(TimelinesTest, AMissingOrMalformedFileIsALineNotAnError) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("storbed-timelines-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.json") << "{not json";
  RunRecord missing, bad, none;
  missing.run_id = "001-a";
  missing.timelines_file = "gone.json";
  bad.run_id = "002-b";
  bad.timelines_file = "bad.json";
  none.run_id = "003-c";  // no timelines: no line at all
  const std::string text = RenderTimelines(dir.string(), {missing, bad, none});
  std::filesystem::remove_all(dir);
  EXPECT_NE(text.find("001-a: timelines file " + (dir / "gone.json").string() + " is missing\n"),
            std::string::npos);
  EXPECT_NE(text.find("002-b: timelines file " + (dir / "bad.json").string() + " is malformed"),
            std::string::npos);
  EXPECT_EQ(text.find("003-c"), std::string::npos);
}

}  // namespace
}  // namespace storbed

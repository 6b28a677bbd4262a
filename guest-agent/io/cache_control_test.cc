#include "cache_control.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "job_runner.h"
#include "temp_file_for_test.h"

namespace storbed {
namespace {

class FakeCacheSystem : public CacheSystem {
 public:
  void Sync() override { calls.push_back("sync"); }
  std::optional<std::string> DropCaches(const std::string& value) override {
    calls.push_back("drop_caches " + value);
    return drop_error;
  }
  std::vector<std::string> calls;
  std::optional<std::string> drop_error;
};

TEST(CacheControlTest, ColdSyncsBeforeDroppingThenAdvisesTheFile) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 1 << 16);
  FakeCacheSystem sys;
  const CachePrepared p = PrepareCache(file, CacheState::Cold, sys);
  EXPECT_EQ(sys.calls, (std::vector<std::string>{"sync", "drop_caches 3"}));
  ASSERT_EQ(p.steps.size(), 3u) << "no BLKFLSBUF for a regular file";
  EXPECT_EQ(p.steps[0].name, "sync");
  EXPECT_EQ(p.steps[1].name, "drop_caches=3");
  EXPECT_EQ(p.steps[2].name, "fadvise(DONTNEED)");
  for (const auto& step : p.steps) EXPECT_EQ(step.error, "") << step.name;
  EXPECT_TRUE(p.Warnings().empty());
  const std::string text = p.StepsText();
  EXPECT_EQ(text.find("sync ("), 0u) << text;
  EXPECT_NE(text.find(", drop_caches=3 ("), std::string::npos) << text;
  EXPECT_NE(text.find(", fadvise(DONTNEED) ("), std::string::npos) << text;
  EXPECT_GE(p.seconds, 0);
}

TEST(CacheControlTest, FailedDropIsAWarningNotAnError) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 4096);
  FakeCacheSystem sys;
  sys.drop_error = "open /proc/sys/vm/drop_caches: Read-only file system";
  const CachePrepared p = PrepareCache(file, CacheState::Cold, sys);
  ASSERT_EQ(p.Warnings().size(), 1u);
  EXPECT_NE(p.Warnings()[0].find("drop_caches=3 failed: open /proc/sys/vm/drop_caches: "
                                 "Read-only file system"),
            std::string::npos)
      << p.Warnings()[0];
  EXPECT_EQ(p.StepsText().find("drop_caches"), std::string::npos) << "failed step listed as done";
}

TEST(CacheControlTest, KeepDoesNothing) {
  FakeCacheSystem sys;
  const CachePrepared p = PrepareCache("/nonexistent", CacheState::Keep, sys);
  EXPECT_TRUE(sys.calls.empty());
  EXPECT_TRUE(p.steps.empty());
  EXPECT_EQ(p.StepsText(), "none");
}

TEST(CacheControlTest, UnopenableTargetIsFatal) {
  FakeCacheSystem sys;
  try {
    PrepareCache("/nonexistent/disk", CacheState::Cold, sys);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/disk"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(sys.calls.empty()) << "host caches dropped for a job that cannot run";
}

}  // namespace
}  // namespace storbed

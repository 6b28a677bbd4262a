#include "job_file.h"

#include <gtest/gtest.h>

#include "temp_tree_for_test.h"

namespace storbed::agent {
namespace {

constexpr const char* kGoodJob =
    R"({"name":"seq-read","target":"/dev/vdb","pattern":"sequential","rw":"read",)"
    R"("ioengine":"psync","bs":4096,"iodepth":1})";

std::string FieldOfError(const std::string& text) {
  try {
    ParseJobDocument(text, "job.json");
  } catch (const JobFileError& e) {
    EXPECT_NE(std::string(e.what()).find("job.json"), std::string::npos) << e.what();
    return e.field();
  }
  ADD_FAILURE() << "no JobFileError for " << text;
  return "?";
}

TEST(JobFile, LoadsAGoodFile) {
  TempTree dir;
  dir.Write("job.json", kGoodJob);
  const JobSpec spec = LoadJobFile(dir.root() / "job.json");
  EXPECT_EQ(spec.name, "seq-read");
  EXPECT_EQ(spec.target, "/dev/vdb");
  EXPECT_EQ(spec.bs, 4096u);
}

TEST(JobFile, ErrorsNameTheFileAndTheField) {
  EXPECT_EQ(FieldOfError("{not json"), "");
  EXPECT_EQ(FieldOfError("[1]"), "");
  EXPECT_EQ(FieldOfError(R"({"name":"x","target":"/dev/vdb","bs":"big"})"), "bs");
  EXPECT_EQ(FieldOfError(R"({"name":"x","target":"/dev/vdb","pattern":"zigzag"})"), "pattern");
  EXPECT_EQ(FieldOfError(R"({"name":"x","target":"/dev/vdb","iodepht":4})"), "iodepht");
  EXPECT_EQ(FieldOfError(R"({"name":"x","pattern":"sequential","rw":"read","ioengine":"psync",)"
                         R"("bs":4096,"iodepth":1})"),
            "target");
}

TEST(JobFile, AcceptsTheFsyncAndSamplerFields) {
  const JobSpec spec = ParseJobDocument(
      R"({"name":"w","target":"/dev/vdb","pattern":"random","rw":"write","ioengine":"io_uring",)"
      R"("bs":4096,"iodepth":8,"fsync":16,"end_fsync":true,)"
      R"("inflight_sample_ms":5,"stats_sample_ms":0})",
      "job.json");
  EXPECT_EQ(spec.fsync_every, 16u);
  EXPECT_TRUE(spec.end_fsync);
  EXPECT_EQ(spec.inflight_sample_ms, 5u);
  EXPECT_EQ(spec.stats_sample_ms, 0u);
  EXPECT_EQ(FieldOfError(R"({"name":"x","target":"/dev/vdb","pattern":"random","rw":"write",)"
                         R"("ioengine":"psync","bs":4096,"iodepth":1,"fsync":-1})"),
            "fsync");
}

TEST(JobFile, MissingFileIsAJobFileError) {
  EXPECT_THROW(LoadJobFile("/nonexistent/job.json"), JobFileError);
}

}  // namespace
}  // namespace storbed::agent

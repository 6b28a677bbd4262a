#include "results/record_check.h"

#include <gtest/gtest.h>

#include "results/run_record.h"

namespace storbed {
namespace record_check_test {  // named, not anonymous: a unity build joins files

using nlohmann::json;

// A record whose result is missing (a typo, "resuli", found by results_fuzz) is judged by
// its other fields; reading the absent key was undefined behaviour (an assertion under
// the sanitizers).
TEST(RecordCheckTest, ARecordWithoutAResultIsJudgedNotReadPastItsEnd) {
  RunRecord r;
  r.run_id = "001-a";
  r.target = "virtio-blk";
  r.accel = "tcg";
  r.status = RunStatus::Failed;
  r.error = "the guest died";
  json failed = r;
  failed.erase("result");
  failed["resuli"] = {{"iops", 5}};
  EXPECT_EQ(RecordProblem(failed), "");
}

}  // namespace record_check_test
}  // namespace storbed

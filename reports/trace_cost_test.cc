#include "reports/trace_cost.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

RunRecord RunOf(const std::string& id, bool trace, int repeat, double iops) {
  RunRecord r;
  r.run_id = id;
  r.target = "virtio-blk";
  r.job.name = "rr";
  r.job.trace = trace;
  r.params = {{"job.trace", trace}, {"repeat", repeat}};
  JobResult result;
  result.iops = iops;
  r.result = result;
  if (trace) r.io_trace = IoTraceFigures{};
  return r;
}

TEST(TraceCostTest, TheRatioOfTheSidesMediansWithTheirRunCounts) {
  const std::vector<RunRecord> records = {RunOf("1", false, 1, 1000), RunOf("2", true, 1, 790),
                                          RunOf("3", false, 2, 1100), RunOf("4", true, 2, 800),
                                          RunOf("5", false, 3, 900), RunOf("6", true, 3, 810)};
  const std::string line = TraceCostLine(records[1], records);
  EXPECT_NE(line.find("traced / untraced IOPS 0.800 (medians 800 and 1000 IOPS of 3 traced "
                      "and 3 untraced runs"),
            std::string::npos)
      << line;
}

TEST(TraceCostTest, NothingWithoutUntracedRunsOfTheSameCell) {
  RunRecord other = RunOf("1", false, 1, 1000);
  other.job.name = "seq";
  other.params["job.trace"] = false;
  const RunRecord traced = RunOf("2", true, 1, 800);
  EXPECT_EQ(TraceCostLine(traced, {other, traced}), "");
  EXPECT_EQ(TraceCostLine(other, {other, traced}), "");  // not traced itself
  RunRecord failed = RunOf("3", false, 1, 1000);
  failed.status = RunStatus::Failed;
  EXPECT_EQ(TraceCostLine(traced, {failed, traced}), "");
}

}  // namespace
}  // namespace storbed

#include "reports/junit.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

MetricRow Row(const std::string& cell, const std::string& metric, const std::string& verdict) {
  MetricRow r;
  r.cell = cell;
  r.metric = metric;
  r.direction = Better::Higher;
  r.role = MetricRole::Primary;
  r.verdict = verdict;
  r.median_base = 100;
  r.median_cand = 89;
  r.ratio = 0.89;
  r.ci_low = 0.85;
  r.ci_high = 0.93;
  r.p = 0.0001;
  return r;
}

TEST(JunitTest, OneTestcasePerCellAndMetricAndAWorseVerdictIsAFailure) {
  CompareReport report;
  report.rows = {Row("virtio-blk r<&>", "iops", "worse"), Row("virtio-blk r<&>", "p99_us", "no change"),
                 Row("nvme r", "iops", "inconclusive")};
  const std::string xml = JunitXml(report, "nightly", "2026-12-01T02:00:00Z");
  EXPECT_EQ(Count(xml, "<testcase "), 3u);
  EXPECT_EQ(Count(xml, "<failure "), 1u);
  EXPECT_EQ(Count(xml, "<skipped "), 1u);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("classname=\"virtio-blk r&lt;&amp;&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("message=\"virtio-blk r&lt;&amp;&gt; iops: worse: ratio 0.890 [0.850, "
                     "0.930], p 0.0001, median 100 -&gt; 89 (higher is better)\""),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<&>"), std::string::npos);
}

// A secondary metric never sets the exit code, so its worse verdict never fails the job; a
// gate that cannot judge is an error, never a pass.
TEST(JunitTest, SecondaryWorseIsNoFailureAndCannotJudgeIsAnError) {
  CompareReport report;
  MetricRow secondary = Row("nvme r", "latency L2 QEMU block", "worse");
  secondary.role = MetricRole::Secondary;
  report.rows = {secondary, Row("nvme r", "iops", "cannot judge")};
  const std::string xml = JunitXml(report, "nightly", "t");
  EXPECT_EQ(Count(xml, "<failure "), 0u);
  EXPECT_EQ(Count(xml, "<error type=\"cannot judge\""), 1u);
  EXPECT_NE(xml.find("failures=\"0\" errors=\"1\""), std::string::npos) << xml;
}

TEST(JunitTest, NotComparableIsOneFailingEnvironmentCase) {
  CompareReport report;
  report.comparable = false;
  report.differences = {{"cpu.model", "Xeon", "EPYC", true, false, ""},
                        {"load.avg1", "1", "2", false, false, ""}};
  const std::string xml = JunitXml(report, "nightly", "t");
  EXPECT_EQ(Count(xml, "<failure "), 1u);
  EXPECT_NE(xml.find("message=\"not comparable: cpu.model differs\""), std::string::npos) << xml;
}

}  // namespace
}  // namespace storbed

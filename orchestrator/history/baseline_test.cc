#include "history/baseline.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

std::vector<HistorySession> Nights() {
  std::vector<HistorySession> out;
  for (int day = 1; day <= 9; ++day) {
    HistorySession s;
    s.session = "s" + std::to_string(day);
    s.started_at = "2026-11-0" + std::to_string(day) + "T02:00:00Z";
    s.revision = day <= 5 ? "aaa111" : "bbb222";
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> Names(const std::vector<HistorySession>& sessions) {
  std::vector<std::string> out;
  for (const auto& s : sessions) out.push_back(s.session);
  return out;
}

TEST(BaselineTest, LastCountsBackFromTonightAndNeverTakesTonight) {
  const auto picked = PickBaseline(Nights(), ParseBaseline("last:3"), "s9", "2026-11-09T02:00:00Z");
  EXPECT_EQ(Names(picked), (std::vector<std::string>{"s6", "s7", "s8"}));
  // Tonight imported already, or a later night in the history: neither is a baseline.
  EXPECT_EQ(Names(PickBaseline(Nights(), ParseBaseline("last:2"), "x", "2026-11-05T00:00:00Z")),
            (std::vector<std::string>{"s3", "s4"}));
}

TEST(BaselineTest, RevisionIsAPrefixAndDateARangeOfPrefixes) {
  EXPECT_EQ(PickBaseline(Nights(), ParseBaseline("rev:aaa"), "x", "2026-12").size(), 5u);
  EXPECT_EQ(Names(PickBaseline(Nights(), ParseBaseline("date:2026-11-04..2026-11-06"), "x",
                               "2026-12")),
            (std::vector<std::string>{"s4", "s5", "s6"}));
  EXPECT_EQ(Names(PickBaseline(Nights(), ParseBaseline("date:2026-11-02"), "x", "2026-12")),
            (std::vector<std::string>{"s2"}));
}

TEST(BaselineTest, BadSpecsSayWhatIsExpected) {
  for (const char* bad : {"", "last", "last:", "last:0", "last:-1", "last:x", "week:1", "rev:",
                          "date:..2026", "date:2026-11-05..2026-11-01"}) {
    try {
      ParseBaseline(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("expected last:N, rev:REVISION or date:FROM[..TO]"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace storbed

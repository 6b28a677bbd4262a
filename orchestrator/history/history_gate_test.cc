#include "history/history_gate.h"

#include <gtest/gtest.h>

namespace storbed {
namespace history_gate_test {  // named, not anonymous: a unity build joins files

nlohmann::json Manifest(const std::string& session, int day, const std::string& cpu) {
  return {{"session", session},
          {"started_at",
           "2026-12-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T02:00:00Z"},
          {"scenario", {{"name", "s"}}},
          {"environment", {{"cpu.model", cpu}, {"storbed.git_revision", "r" + session}}}};
}

HistorySession Session(const std::string& session, int day, const std::string& cpu) {
  HistorySession s;
  s.session = session;
  s.manifest = Manifest(session, day, cpu);
  s.started_at = s.manifest["started_at"];
  s.fingerprint_class = FingerprintClass(s.manifest);
  return s;
}

// Two hosts of different CPUs in one store, night after night: EPYC on even sessions.
std::vector<HistorySession> Lab(int nights) {
  std::vector<HistorySession> out;
  for (int d = 1; d <= nights; ++d) {
    out.push_back(Session("epyc" + std::to_string(d), d, "EPYC"));
    out.push_back(Session("xeon" + std::to_string(d), d, "Xeon"));
  }
  return out;
}

std::vector<std::string> Names(const std::vector<HistorySession>& sessions) {
  std::vector<std::string> out;
  for (const auto& s : sessions) out.push_back(s.session);
  return out;
}

TEST(HistoryGateTest, LastNMeansTheLastNNightsOfTonightsClass) {
  const GateBaseline b = PickGateBaseline(Lab(9), Manifest("tonight", 10, "EPYC"),
                                          {ParseBaseline("last:3"), "last:3", {}, false});
  EXPECT_EQ(Names(b.accepted), (std::vector<std::string>{"epyc7", "epyc8", "epyc9"}));
  EXPECT_EQ(b.earlier, 18u);
  EXPECT_EQ(b.other_class, 9u);
  EXPECT_EQ(b.tonight_class, FingerprintClass(Manifest("x", 1, "EPYC")));
}

// Regression: before classes, last:3 in a two-host store picked 3 sessions of both hosts and
// accepted only 1 or 2 of them; with --any-class it does so again, as asked.
TEST(HistoryGateTest, AnyClassPicksFromEveryClassAndTheEnvironmentCheckStillApplies) {
  const GateBaseline b = PickGateBaseline(Lab(9), Manifest("tonight", 10, "EPYC"),
                                          {ParseBaseline("last:3"), "last:3", {}, true});
  EXPECT_EQ(Names(b.picked), (std::vector<std::string>{"xeon8", "epyc9", "xeon9"}));
  EXPECT_EQ(Names(b.accepted), (std::vector<std::string>{"epyc9"}));
  EXPECT_EQ(b.other_class, 0u);
}

TEST(HistoryGateTest, AnotherClassThatAllowDiffAllowsIsTonights) {
  const GateBaseline b =
      PickGateBaseline(Lab(3), Manifest("tonight", 10, "EPYC"),
                       {ParseBaseline("last:4"), "last:4", {"cpu.model"}, false});
  EXPECT_EQ(b.accepted.size(), 4u);
  EXPECT_EQ(b.other_class, 0u);
}

// One host whose CPU (or QEMU) changed: no night of tonight's class, so the gate says what
// differs (not comparable, exit 5) as it did before classes, rather than "no baseline".
TEST(HistoryGateTest, NoNightOfTonightsClassPicksFromEveryClassToSayWhatDiffers) {
  std::vector<HistorySession> xeon;
  for (int d = 1; d <= 5; ++d) xeon.push_back(Session("xeon" + std::to_string(d), d, "Xeon"));
  const GateBaseline b = PickGateBaseline(xeon, Manifest("tonight", 10, "EPYC"),
                                          {ParseBaseline("last:3"), "last:3", {}, false});
  EXPECT_EQ(b.picked.size(), 3u);
  EXPECT_TRUE(b.accepted.empty());
  ASSERT_FALSE(b.rejected_by.empty());
  EXPECT_EQ(b.rejected_by[0].item, "cpu.model");
  EXPECT_EQ(b.other_class, 5u);
}

// Regression (the VM test's last gate): nights of tonight's class exist, but --baseline
// names a date range before the change, all of another class. "no baseline" (exit 2) hid
// what differs; those nights are picked and found not comparable (exit 5), as before.
TEST(HistoryGateTest, ABaselineNamingOnlyAnotherClasssNightsPicksThemToSayWhatDiffers) {
  std::vector<HistorySession> host;
  for (int d = 1; d <= 9; ++d)
    host.push_back(Session("n" + std::to_string(d), d, d <= 5 ? "Xeon" : "EPYC"));
  const std::string range = "date:2026-12-01T02:00:00Z..2026-12-05T02:00:00Z";
  const GateBaseline b = PickGateBaseline(host, Manifest("tonight", 10, "EPYC"),
                                          {ParseBaseline(range), range, {}, false});
  EXPECT_EQ(Names(b.picked), (std::vector<std::string>{"n1", "n2", "n3", "n4", "n5"}));
  EXPECT_TRUE(b.accepted.empty());
  ASSERT_FALSE(b.rejected_by.empty());
  EXPECT_EQ(b.rejected_by[0].item, "cpu.model");
}

TEST(HistoryGateTest, TheClassTextSaysHowManyNightsWereSkippedAsAnotherClass) {
  const GateBaseline b = PickGateBaseline(Lab(9), Manifest("tonight", 10, "EPYC"),
                                          {ParseBaseline("last:3"), "last:3", {}, false});
  EXPECT_EQ(BaselineClassText(b, false), "fingerprint class " + b.tonight_class +
                                             ": 9 earlier session(s) of it, 9 skipped as "
                                             "another class");
}

}  // namespace history_gate_test
}  // namespace storbed

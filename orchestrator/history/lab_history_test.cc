// A lab on one history, on both engines: 3 hosts (3 processes, each its own host label and
// CPU, so its own fingerprint class) write 10 nights of two scenarios at once. A step on
// every host at night 7 is one suite change, a step on lab2 alone is lab2's, and each
// host's gate against its own class judges as the same gate does over an SQLite copy.
#include <gtest/gtest.h>

#include <set>

#include "history/history_engines_for_test.h"
#include "history/history_gate.h"
#include "history/lab_series.h"
#include "history/writers_for_test.h"
#include "reports/compare_input.h"

namespace storbed {
namespace lab_history_test {  // named, not anonymous: a unity build joins files

constexpr int kHosts = 3, kNights = 10;
const char* const kCpus[kHosts] = {"EPYC 7763", "Xeon 8380", "EPYC 9654"};

class LabHistoryTest : public HistoryEngineTest {
 protected:
  std::string Host(int h) { return "lab" + std::to_string(h + 1); }

  // Night `n` (from 1) of host `h` in `scenario`: 3 repeats around 1000 IO/s, a little
  // jitter from night to night, 30% lower from night 7 where `stepped`.
  std::string Night(const std::string& scenario, int h, int n, bool stepped) {
    const std::string name = scenario + "-" + Host(h) + "-n" + std::to_string(n);
    const double jitter = 1 + 0.01 * ((n * 7 + h * 3) % 5 - 2);
    WriteFakeResults(dir_ / name,
                     {.session = name,
                      .started_at = "2026-12-" + std::string(n < 10 ? "0" : "") +
                                    std::to_string(n) + "T02:0" + std::to_string(h) + ":00Z",
                      .iops = 1000 * jitter * (stepped && n >= 7 ? 0.7 : 1.0),
                      .runs = 3,
                      .cpu = kCpus[h],
                      .host = Host(h),
                      .scenario = scenario});
    return (dir_ / name).string();
  }

  // Every host's nights of both scenarios: "suite-step" stepped on every host, "host-step"
  // on lab2 alone.
  std::vector<std::vector<std::string>> LabDirs() {
    std::vector<std::vector<std::string>> dirs(kHosts);
    for (int h = 0; h < kHosts; ++h)
      for (int n = 1; n <= kNights; ++n) {
        dirs[h].push_back(Night("suite-step", h, n, true));
        dirs[h].push_back(Night("host-step", h, n, h == 1));
      }
    return dirs;
  }

  std::vector<LabCell> Cells(HistoryStore& store, const std::string& scenario) {
    return LabSeries(store, store.Sessions(scenario), "iops");
  }
};

TEST_P(LabHistoryTest, ThreeHostsWritingAtOnceLandEverySessionOnce) {
  SKIP_UNLESS_ENGINE();
  const auto dirs = LabDirs();
  // The store is there before the hosts write, as a lab's is.
  HistoryStore(spec_, HistoryStore::Open::Create);
  EXPECT_EQ(ImportInWriterProcesses(spec_, dirs), 0) << "a writer failed";
  HistoryStore store(spec_, HistoryStore::Open::Existing);
  const auto sessions = store.Sessions();
  ASSERT_EQ(sessions.size(), size_t(kHosts * kNights * 2));
  std::set<std::string> names, hosts, classes;
  for (const auto& s : sessions) {
    names.insert(s.session);
    hosts.insert(s.host);
    classes.insert(s.fingerprint_class);
    EXPECT_EQ(store.Records(s.id).size(), 3u) << s.session;
  }
  EXPECT_EQ(names.size(), sessions.size());
  EXPECT_EQ(hosts, (std::set<std::string>{"lab1", "lab2", "lab3"}));
  EXPECT_EQ(classes.size(), size_t(kHosts));

  // The suite's step: one change, every host's, at night 7 (index 6 on the lab's axis).
  const auto suite = Cells(store, "suite-step");
  ASSERT_EQ(suite.size(), 1u);
  EXPECT_EQ(suite[0].hosts.size(), size_t(kHosts));
  EXPECT_EQ(suite[0].nights.size(), size_t(kNights));
  ASSERT_EQ(suite[0].changes.size(), 1u);
  EXPECT_EQ(suite[0].changes[0].scope, ChangeScope::Suite);
  EXPECT_EQ(suite[0].changes[0].night, 6u);
  EXPECT_EQ(suite[0].changes[0].changes.size(), size_t(kHosts));
  // lab2's step: lab2's alone.
  const auto host = Cells(store, "host-step");
  ASSERT_EQ(host.size(), 1u);
  ASSERT_EQ(host[0].changes.size(), 1u);
  EXPECT_EQ(host[0].changes[0].scope, ChangeScope::Host);
  EXPECT_EQ(host[0].changes[0].night, 6u);
  ASSERT_EQ(host[0].changes[0].changes.size(), 1u);
  EXPECT_EQ(host[0].changes[0].changes[0].host, "lab2");
  // Each host's night 10 on the lab axis carries that host's own values.
  EXPECT_EQ(ValuesByNight(host[0].hosts[1], host[0].nights.size()).at(9).size(), 3u);

  // Each host's gate of night 10 against its own class: its own 7 nights before, the other
  // hosts' 20 skipped, and the same verdicts as over an SQLite copy imported one by one.
  HistoryStore copy((dir_ / "copy.db").string(), HistoryStore::Open::Create);
  for (const auto& host_dirs : dirs)
    for (const std::string& d : host_dirs) copy.Import(d);
  for (const std::string scenario : {"suite-step", "host-step"})
    for (int h = 0; h < kHosts; ++h) {
      const std::string tonight = dirs[h][2 * (kNights - 1) + (scenario == "host-step")];
      const auto manifest = LoadCompareManifest(tonight, "RESULTS");
      const auto records = LoadCompareSide(tonight, "RESULTS");
      const GateBaselineRequest request{ParseBaseline("last:7"), "last:7", {}, false};
      const GateOutcome here = GateFromHistory(store, manifest, records, tonight, request, {});
      const GateOutcome sqlite = GateFromHistory(copy, manifest, records, tonight, request, {});
      EXPECT_EQ(here.baseline.accepted.size(), 7u) << scenario << " " << Host(h);
      // The other hosts' 9 nights each, and those of their night 10 that started earlier.
      EXPECT_EQ(here.baseline.other_class, size_t(2 * (kNights - 1) + h)) << scenario;
      for (const HistorySession& s : here.baseline.accepted) EXPECT_EQ(s.host, Host(h));
      ASSERT_EQ(here.report.rows.size(), sqlite.report.rows.size());
      ASSERT_FALSE(here.report.rows.empty());
      for (size_t i = 0; i < here.report.rows.size(); ++i) {
        const MetricRow &a = here.report.rows[i], &b = sqlite.report.rows[i];
        EXPECT_EQ(a.cell + " " + a.metric + ": " + a.verdict,
                  b.cell + " " + b.metric + ": " + b.verdict);
        EXPECT_EQ(a.adjusted_p, b.adjusted_p) << a.cell << " " << a.metric;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Engines, LabHistoryTest,
                         ::testing::Values(HistoryEngine::Sqlite, HistoryEngine::Postgres),
                         EngineName);

}  // namespace lab_history_test
}  // namespace storbed

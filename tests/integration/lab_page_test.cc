// A lab's history through the CLI: 3 hosts' nights imported into one store (PostgreSQL
// where the test cluster starts, else SQLite), `history --by-host` naming the suite's change
// and one host's, `gate` against tonight's class saying what it skipped, and the lab page
// (`report --history DB --lab --html FILE`) clean in headless Chromium, one series per host.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "chromium_for_test.h"
#include "history/pg_cluster_for_test.h"
#include "history/results_dir_for_test.h"
#include "test_env.h"

namespace storbed {
namespace lab_page_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

constexpr int kHosts = 3, kNights = 10;

// Night `n` (from 1) of lab<h+1>: around 1000 IO/s with a little jitter, 30% lower from
// night 7 on every host ("suite-step") or on lab2 alone ("host-step").
std::string Night(const std::string& dir, const std::string& scenario, int h, int n) {
  const std::string host = "lab" + std::to_string(h + 1);
  const std::string name = scenario + "-" + host + "-n" + std::to_string(n);
  const bool stepped = n >= 7 && (scenario == "suite-step" || h == 1);
  WriteFakeResults(dir + "/" + name,
                   {.session = name,
                    .started_at = "2026-12-" + std::string(n < 10 ? "0" : "") + std::to_string(n) +
                                  "T02:0" + std::to_string(h) + ":00Z",
                    .iops = 1000 * (1 + 0.01 * ((n * 7 + h * 3) % 5 - 2)) * (stepped ? 0.7 : 1),
                    .runs = 3,
                    .cpu = "cpu-of-" + host,
                    .host = host,
                    .scenario = scenario});
  return dir + "/" + name;
}

TEST(LabPageTest, ThreeHostsOnePageTheSuitesChangeAndOneHostsAndTheGateByClass) {
  const std::string dir = testing::ScratchDir("lab-page");
  std::string why, db = dir + "/lab.db";
  if (PgTestCluster* pg = PgTestCluster::Get(&why)) db = pg->Uri(pg->NewDatabase("lab_page"));
  std::vector<std::string> import = {"history", "import"};
  for (int n = 1; n <= kNights; ++n)
    for (int h = 0; h < kHosts; ++h)
      for (const char* scenario : {"suite-step", "host-step"})
        import.push_back(Night(dir, scenario, h, n));
  import.insert(import.end(), {"--history", db});
  const testing::CliRun imported = testing::RunCli(import, dir + "/import.log");
  ASSERT_EQ(imported.exit, "exited with status 0") << imported.log;

  const testing::CliRun by_host =
      testing::RunCli({"history", db, "--by-host", "--json"}, dir + "/by-host.log");
  ASSERT_EQ(by_host.exit, "exited with status 0") << by_host.log;
  const nlohmann::json series = nlohmann::json::parse(testing::Slurp(dir + "/by-host.log"));
  ASSERT_EQ(series["scenarios"].size(), 2u);
  for (const auto& s : series["scenarios"]) {
    ASSERT_EQ(s["cells"].size(), 1u);
    const auto& cell = s["cells"][0];
    EXPECT_EQ(cell["hosts"].size(), size_t(kHosts));
    ASSERT_EQ(cell["changes"].size(), 1u) << cell.dump(1);
    EXPECT_EQ(cell["changes"][0]["night"], 7);
    if (s["scenario"] == "suite-step") {
      EXPECT_EQ(cell["changes"][0]["scope"], "suite");
    } else {
      EXPECT_EQ(cell["changes"][0]["scope"], "host");
      EXPECT_EQ(cell["changes"][0]["hosts"][0]["host"], "lab2");
    }
  }
  const testing::CliRun text =
      testing::RunCli({"history", db, "--by-host", "--scenario", "host-step"}, dir + "/text.log");
  EXPECT_NE(text.log.find("lab2's change at night 7 (2026-12-07): ratio 0.7"), std::string::npos)
      << text.log;

  // lab1's night 10 against its class: its own 7 nights, the other hosts' 18 skipped.
  const testing::CliRun gate = testing::RunCli(
      {"gate", dir + "/host-step-lab1-n10", "--history", db, "--json"}, dir + "/gate.log");
  EXPECT_NE(gate.log.find("9 earlier session(s) of it, 18 skipped as another class"),
            std::string::npos)
      << gate.log;
  EXPECT_NE(gate.log.find("7 with an environment the gate accepts"), std::string::npos);

  const std::string html = dir + "/lab.html";
  const testing::CliRun page =
      testing::RunCli({"report", "--history", db, "--lab", "--html", html}, dir + "/lab.log");
  ASSERT_EQ(page.exit, "exited with status 0") << page.log;
  const std::string markup = testing::Slurp(html);
  // 2 scenarios x 1 cell x 3 metrics (iops, p50_us, p99_us) x 3 hosts: one series per host.
  EXPECT_EQ(testing::Occurrences(markup, "data-chart=\"history\""), size_t(2 * 3 * kHosts));
  for (const char* host : {"lab1", "lab2", "lab3"})
    EXPECT_EQ(testing::Occurrences(markup, "data-host=\"" + std::string(host) + "\""), 6u);
  EXPECT_NE(markup.find("suite change at night 7 (2026-12-07) on all 3 hosts"), std::string::npos);
  EXPECT_NE(markup.find("lab2&#39;s change at night 7"), std::string::npos) << markup;
  const std::string chromium = testing::ChromiumPath();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  const std::string dom =
      testing::OpenInChromium(chromium, html, "--dump-dom", dir, dir + "/chromium-dom.log");
  EXPECT_EQ(dom.find("CONSOLE"), std::string::npos) << dom;
  EXPECT_EQ(testing::Occurrences(dom, "data-chart=\"history\""), size_t(2 * 3 * kHosts));
  const std::string screenshot = testing::TestArtifactsDir() + "/lab.png";
  testing::OpenInChromium(chromium, html, "--screenshot=" + screenshot, dir,
                          dir + "/chromium-shot.log");
  EXPECT_TRUE(fs::exists(screenshot));
  fs::remove_all(dir);
}

}  // namespace lab_page_test
}  // namespace storbed

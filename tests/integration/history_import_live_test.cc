// Issue 38 item 6 through the real binaries: `history import` of a results directory whose
// run is still going is refused and writes nothing; after the run ends the same import
// stores the whole session.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "backend/child_process.h"
#include "test_env.h"

namespace storbed {
namespace history_import_live_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;
using testing::CliRun;
using testing::RunCli;
using testing::WriteFile;

// Regression: the import during the run stored its first run for good; the import after it
// said "already; nothing added" and the other two runs never reached the history.
TEST(HistoryImportLiveTest, AnImportDuringTheRunIsRefusedAndTheImportAfterItStoresAllRuns) {
  const std::string dir = testing::ScratchDir("history-import-live");
  const std::string out = dir + "/out";
  const std::string db = dir + "/history.db";
  const std::string scenario = WriteFile(dir + "/scenario.json", R"({
    "name": "live", "targets": ["bare-metal"], "disk": {"size": "16m"},
    "jobs": [{"name": "first", "bs": "64k", "io_size": "1m"},
             {"name": "long", "pattern": "random", "bs": "4k", "runtime": 6},
             {"name": "after", "bs": "64k", "io_size": "1m"}]})");
  CliRun during;
  int run_pid = 0;
  const CliRun run = RunCli(
      {"run", scenario, "--out", out, "--work-dir", dir}, dir + "/run.log", [&](ChildProcess& cli) {
        run_pid = cli.Pid();
        ASSERT_TRUE(testing::WaitForLogLine(dir + "/run.log", "002-bare-metal-long on"));
        during = RunCli({"history", "import", out, "--history", db}, dir + "/during.log");
      });
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  EXPECT_EQ(during.exit, "exited with status 2") << during.log;
  EXPECT_NE(during.log.find("storbed: history import: " + out + ": a storbed run (pid " +
                            std::to_string(run_pid) +
                            ") is still writing it; import it after that run ends"),
            std::string::npos)
      << during.log;
  EXPECT_FALSE(fs::exists(db));  // nothing written, not even an empty history

  const CliRun after = RunCli({"history", "import", out, "--history", db}, dir + "/after.log");
  ASSERT_EQ(after.exit, "exited with status 0") << after.log;
  EXPECT_NE(after.log.find("added to " + db + " as session "), std::string::npos) << after.log;
  EXPECT_NE(after.log.find("(3 measured runs"), std::string::npos) << after.log;
}

}  // namespace history_import_live_test
}  // namespace storbed

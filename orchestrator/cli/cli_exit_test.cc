// Issue 36's acceptance: one failing case per kind through every command, in process through
// RunMain as `storbed` runs it, each with the exit code README.md's table gives that kind.
// No guest and no libvirt: the rows are what fails before either is needed.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "exit_codes.h"
#include "history/history_db.h"
#include "history/pg_cluster_for_test.h"
#include "history/results_dir_for_test.h"

namespace storbed {
namespace cli_exit_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

// One row: a command, what goes wrong, and the exit code; "$D" in argv is the scratch dir.
struct ExitCase {
  std::string name;  // the test's name: the command, then what fails
  std::vector<std::string> argv;
  int exit;
};

void PrintTo(const ExitCase& c, std::ostream* os) { *os << c.name; }

// The directory every row's files live in, made once per test program.
const std::string& ScratchDir() {
  static const std::string dir = [] {
    const fs::path d =
        fs::temp_directory_path() / ("storbed-cli-exit-test-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
  }();
  return dir;
}

// A results directory of 7 bare-metal runs of one cell near `iops`, started at
// 2026-12-0<day>, on `cpu`.
void WriteResults(const std::string& name, int day, double iops, const std::string& cpu) {
  WriteFakeResults(fs::path(ScratchDir()) / name,
                   {.session = name,
                    .started_at = "2026-12-0" + std::to_string(day) + "T01:00:00Z",
                    .iops = iops,
                    .runs = 7,
                    .cpu = cpu});
}

// The PostgreSQL rows' databases in the private test cluster ("" when none could start):
// $PG_NEWER a history of schema 99, $PG_NO_DB a database the server does not have.
std::string pg_newer, pg_no_db, pg_why;

std::vector<std::string> Expand(std::vector<std::string> argv) {
  const std::pair<std::string, const std::string*> tokens[] = {{"$PG_NEWER", &pg_newer},
                                                               {"$PG_NO_DB", &pg_no_db}};
  for (std::string& a : argv) {
    for (const auto& [token, value] : tokens)
      if (a == token) a = *value;
    for (size_t at = a.find("$D"); at != std::string::npos; at = a.find("$D"))
      a.replace(at, 2, ScratchDir());
  }
  return argv;
}

// RunMain on `args` (argv[0] added); stdout and stderr captured.
struct Ended {
  int exit;
  std::string out, err;
};
Ended Storbed(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"storbed"};
  for (const std::string& a : Expand(args)) argv.push_back(a);
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int exit = RunMain(int(argv.size()), raw.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  return {exit, out, ::testing::internal::GetCapturedStderr()};
}

class CliExitTest : public ::testing::TestWithParam<ExitCase> {
 protected:
  // Results directories and a history of three nights, written once.
  static void SetUpTestSuite() {
    const std::string& d = ScratchDir();
    WriteResults("base", 1, 1000, "EPYC");
    WriteResults("worse", 2, 500, "EPYC");
    WriteResults("other-cpu", 2, 1000, "Xeon");
    for (int night = 1; night <= 3; ++night)
      WriteResults("night" + std::to_string(night), night, 1000, "EPYC");
    WriteResults("tonight-worse", 5, 500, "EPYC");
    WriteResults("tonight-other-cpu", 5, 1000, "Xeon");
    // Nights that drift by half: no 10% change could show against them.
    for (int night = 1; night <= 3; ++night)
      WriteResults("drifting" + std::to_string(night), night, 500 * night, "EPYC");
    const Ended made = Storbed(
        {"history", "import", "$D/night1", "$D/night2", "$D/night3", "--history", "$D/history.db"});
    ASSERT_EQ(made.exit, kExitOk) << made.err;
    const Ended drifting = Storbed({"history", "import", "$D/drifting1", "$D/drifting2",
                                    "$D/drifting3", "--history", "$D/drifting.db"});
    ASSERT_EQ(drifting.exit, kExitOk) << drifting.err;
    // io.db: the same history in rollback-journal mode, its journal's path taken by a
    // directory, so SQLite's first read fails: "disk I/O error" (SQLITE_IOERR_READ).
    fs::copy_file(d + "/history.db", d + "/io.db");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(std::string(d + "/io.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    fs::create_directories(d + "/io.db-journal");
    fs::create_directories(d + "/a-directory");
    std::ofstream(d + "/not-a-database")
        << "this file is text, not an SQLite database: its first 100 bytes are no header, "
           "so SQLite refuses it whole";
    std::ofstream(d + "/bad-inventory.json") << "{\"hosts\": 3}";
  }
  // The PostgreSQL rows' databases, made once, only in a process that runs such a row (ctest
  // runs each row in its own process: a cluster apiece would cost every row a second).
  static void SetUpPostgres() {
    static bool done = false;
    if (std::exchange(done, true)) return;
    if (PgTestCluster* pg = PgTestCluster::Get(&pg_why)) {
      const std::string newer = pg->Uri(pg->NewDatabase("cli_exit_newer"));
      const Ended made = Storbed({"history", "import", "$D/night1", "--history", newer});
      ASSERT_EQ(made.exit, kExitOk) << made.err;
      OpenHistoryDb(newer, HistoryOpen::Existing)->SetSchemaVersion(99);
      pg_newer = newer;
      pg_no_db = pg->Uri("no_such_database");
    }
  }
  static void TearDownTestSuite() { fs::remove_all(ScratchDir()); }
};

TEST_P(CliExitTest, ExitsWithTheDocumentedCode) {
  for (const std::string& a : GetParam().argv) {
    if (a.rfind("$PG_", 0) != 0) continue;
    SetUpPostgres();
    if (pg_newer.empty()) GTEST_SKIP() << "no PostgreSQL test cluster: " << pg_why;
  }
  const Ended ended = Storbed(GetParam().argv);
  EXPECT_EQ(ended.exit, GetParam().exit) << "stderr: " << ended.err << "\nstdout: " << ended.out;
  // A failure is one "storbed: " sentence; a verdict is a table on stdout.
  if (ended.exit != kExitOk && ended.exit != kExitWorse && ended.exit != kExitNotComparable &&
      ended.exit != kExitCannotJudge) {
    EXPECT_EQ(ended.err.rfind("storbed: ", 0), 0u) << ended.err;
  }
}

// Bad input: exit 2 from every command.
const ExitCase kBadInput[] = {
    {"RunAMissingScenario", {"run", "$D/none.json", "--dry-run"}, kExitBadInput},
    {"RunAnUnknownFlag", {"run", "--no-such-flag"}, kExitBadInput},
    {"RunNoScenario", {"run"}, kExitBadInput},
    {"ImageBuildKernelWithoutModules", {"image", "build", "--kernel", "$D/k"}, kExitBadInput},
    {"ImageListACacheThatIsAFile",
     {"image", "list", "--cache", "$D/not-a-database"},
     kExitBadInput},
    {"ImageGcABadSize", {"image", "gc", "--cache", "$D", "--max-size", "lots"}, kExitBadInput},
    {"ScenarioExplainAnUnknownField", {"scenario", "explain", "no_such_field"}, kExitBadInput},
    {"ReportNoResultsDirectory", {"report", "$D/none"}, kExitBadInput},
    {"ReportHistoryNotADatabase",
     {"report", "$D/base", "--history", "$D/not-a-database", "--html", "$D/r.html"},
     kExitBadInput},
    {"CleanupAMissingWorkDir", {"cleanup", "--no-libvirt", "--work-dir", "$D/none"}, kExitBadInput},
    {"CleanupABadInventory",
     {"cleanup", "--dry-run", "--inventory", "$D/bad-inventory.json", "--work-dir",
      "$D/a-directory"},
     kExitBadInput},
    {"CompareNoResultsDirectory", {"compare", "$D/none", "$D/base"}, kExitBadInput},
    {"CompareABadAlpha", {"compare", "$D/base", "$D/worse", "--alpha", "2"}, kExitBadInput},
    {"HistoryNoSuchDatabase", {"history", "$D/none.db"}, kExitBadInput},
    {"HistoryNotADatabase", {"history", "$D/not-a-database"}, kExitBadInput},
    {"HistoryADirectoryAsTheDatabase", {"history", "$D/a-directory"}, kExitBadInput},
    {"HistoryImportNoResultsDirectory",
     {"history", "import", "$D/none", "--history", "$D/new.db"},
     kExitBadInput},
    {"GateNotADatabase",
     {"gate", "$D/tonight-worse", "--history", "$D/not-a-database"},
     kExitBadInput},
    {"GateAPasswordInThePostgresUri",
     {"gate", "$D/tonight-worse", "--history", "postgresql://lab:secret@db.example/history"},
     kExitBadInput},
    {"RunAPasswordInThePostgresUri",
     {"run", "$D/none.json", "--dry-run", "--history", "postgres://lab@h/db?password=secret"},
     kExitBadInput},
    {"HistoryAPostgresSchemaNewerThanStorbed", {"history", "$PG_NEWER"}, kExitBadInput},
    {"HistoryImportIntoANewerPostgresSchema",
     {"history", "import", "$D/night2", "--history", "$PG_NEWER"},
     kExitBadInput},
    {"GateAPostgresDatabaseTheServerLacks",
     {"gate", "$D/tonight-worse", "--history", "$PG_NO_DB"},
     kExitBadInput},
    {"HistoryMigrateIntoANewerPostgresSchema",
     {"history", "migrate", "$D/history.db", "$PG_NEWER"},
     kExitBadInput},
    {"HistoryMigrateIntoItselfUnderAnotherName",
     {"history", "migrate", "$D/history.db", "$D/./history.db"},
     kExitBadInput},
    {"GateJunitOntoTonightsResults",
     {"gate", "$D/tonight-worse", "--history", "$D/history.db", "--junit",
      "$D/tonight-worse/results.json"},
     kExitBadInput},
    {"GateJunitOntoTheHistory",
     {"gate", "$D/tonight-worse", "--history", "$D/history.db", "--junit", "$D/./history.db"},
     kExitBadInput},
    {"GateABaselineThatPicksNoNight",
     {"gate", "$D/tonight-worse", "--history", "$D/history.db", "--baseline", "rev:none"},
     kExitBadInput},
    {"ManpageAnUnknownPage", {"manpage", "storbed-no-such-command"}, kExitBadInput},
};
INSTANTIATE_TEST_SUITE_P(BadInput, CliExitTest, ::testing::ValuesIn(kBadInput),
                         [](const auto& info) { return info.param.name; });

// The host failed: SQLite's I/O error on the history (io.db), the file system refusing a
// directory. Exit 1, never 2: until issue 36, compare, gate and history said 2 for any error,
// and report --history turned every SQLite error into bad input.
const ExitCase kHost[] = {
    {"HistoryAnIoError", {"history", "$D/io.db"}, kExitFailed},
    {"HistoryImportAnIoError",
     {"history", "import", "$D/night1", "--history", "$D/io.db"},
     kExitFailed},
    {"GateAnIoError", {"gate", "$D/tonight-worse", "--history", "$D/io.db"}, kExitFailed},
    {"HistoryAPostgresServerOutOfReach",
     {"history", "postgresql:///history?host=$D/no-server-here"},
     kExitFailed},
    {"HistoryImportAPostgresServerOutOfReach",
     {"history", "import", "$D/night1", "--history", "postgresql:///history?host=$D/no-server"},
     kExitFailed},
    {"ReportHistoryAnIoError",
     {"report", "$D/base", "--history", "$D/io.db", "--html", "$D/r.html"},
     kExitFailed},
    {"ManpagePagesIntoAFile", {"manpage", "--dir", "$D/not-a-database/man"}, kExitFailed},
};
INSTANTIATE_TEST_SUITE_P(Host, CliExitTest, ::testing::ValuesIn(kHost),
                         [](const auto& info) { return info.param.name; });

// The verdicts: a regression, sides not comparable, a gate that cannot judge.
const ExitCase kVerdicts[] = {
    {"CompareSameRunsNoneWorse", {"compare", "$D/base", "$D/base"}, kExitOk},
    {"CompareARegression", {"compare", "$D/base", "$D/worse"}, kExitWorse},
    {"CompareAnotherCpu", {"compare", "$D/base", "$D/other-cpu"}, kExitNotComparable},
    {"GateARegression", {"gate", "$D/tonight-worse", "--history", "$D/history.db"}, kExitWorse},
    {"GateAnotherCpu",
     {"gate", "$D/tonight-other-cpu", "--history", "$D/history.db"},
     kExitNotComparable},
    {"GateDriftingNightsCannotJudge",
     {"gate", "$D/tonight-other-cpu", "--history", "$D/drifting.db", "--allow-diff", "cpu.model"},
     kExitCannotJudge},
};
INSTANTIATE_TEST_SUITE_P(Verdict, CliExitTest, ::testing::ValuesIn(kVerdicts),
                         [](const auto& info) { return info.param.name; });

}  // namespace cli_exit_test
}  // namespace storbed

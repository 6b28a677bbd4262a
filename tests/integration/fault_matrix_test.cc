// Faults against real guests under TCG (issue 15's fault matrix): a hung (SIGSTOPped)
// QEMU, a guest kernel panic, libvirtd killed mid-run, and a full out dir. Each test
// asserts the message, the exit code, the records kept and that nothing is left: no QEMU,
// no domain, no work dir. (QEMU SIGKILL and Ctrl-C are in cli_run_test, two runs into one
// out dir and storbed SIGKILL + cleanup in bad_input_test and cleanup_test.)
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/mount.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "backend/child_process.h"
#include "results/results_dir.h"
#include "second_libvirtd.h"
#include "unique_fd.h"
#include "test_env.h"

namespace storbed {
namespace fault_matrix_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using testing::CliRun;
using testing::RunCli;
using testing::Slurp;

using testing::WriteFile;

// first (short), long (the job the fault lands in), after (reached only if the machine lives).
std::string ThreeJobScenario(const std::string& dir, const std::string& name,
                             int long_runtime_s = 120) {
  return WriteFile(dir + "/scenario.json", R"({
    "name": ")" + name + R"(", "targets": ["virtio-blk"], "machine": {"memory": "512m"},
    "disk": {"size": "16m"},
    "jobs": [{"name": "first", "bs": "64k", "io_size": "1m"},
             {"name": "long", "pattern": "random", "bs": "4k", "runtime": )" +
                                               std::to_string(long_runtime_s) + R"(},
             {"name": "after", "bs": "64k", "io_size": "1m"}]})");
}

// Waits until the CLI's log shows `line`, then a little longer so the job is under way.
void WaitUntilUnderWay(const std::string& log, const std::string& line) {
  ASSERT_TRUE(testing::WaitForLogLine(log, line)) << Slurp(log);
  std::this_thread::sleep_for(std::chrono::seconds(3));
}

TEST(FaultMatrixTest, AStoppedQemuIsNamedWithin15SecondsAndTheRestIsSkipped) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("fault-stop");
  const std::string out = dir + "/out";
  const std::string work = dir + "/work";
  fs::create_directories(work);
  Clock::time_point stopped_at, named_at;
  int qemu_pid = -1;
  const CliRun run = RunCli(
      {"run", ThreeJobScenario(dir, "stop"), "--out", out, "--work-dir", work, "--image-cache",
       testing::ImageCacheDir()},
      dir + "/cli.log", [&](ChildProcess&) {
        WaitUntilUnderWay(dir + "/cli.log", "002-virtio-blk-long on");
        const auto pids = testing::QemuPidsMentioning(work);
        ASSERT_EQ(pids.size(), 1u);
        qemu_pid = pids[0];
        ASSERT_EQ(kill(qemu_pid, SIGSTOP), 0);
        stopped_at = Clock::now();
        ASSERT_TRUE(testing::WaitForLogLine(dir + "/cli.log", "the agent sent nothing",
                                            std::chrono::minutes(2)));
        named_at = Clock::now();
      });
  const double detect_s = std::chrono::duration<double>(named_at - stopped_at).count();
  std::cout << "[ hang     ] named " << detect_s << " s after SIGSTOP\n";
  EXPECT_LE(detect_s, 15.0);
  EXPECT_EQ(run.exit, "exited with status 3") << run.log;
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  EXPECT_EQ(records[1].status, RunStatus::Failed);
  EXPECT_NE(records[1].error.find("the agent sent nothing for 12 s while answering run"),
            std::string::npos)
      << records[1].error;
  EXPECT_NE(records[1].error.find("QEMU (pid " + std::to_string(qemu_pid) +
                                  ") is stopped (state T: SIGSTOP or a debugger)"),
            std::string::npos)
      << records[1].error;
  EXPECT_EQ(records[2].status, RunStatus::Skipped);
  EXPECT_EQ(records[2].error, "QEMU was stopped during 002-virtio-blk-long");
  EXPECT_GT(fs::file_size(out + "/" + records[1].console_log), 0u);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  EXPECT_TRUE(fs::is_empty(work));
}

// Runs a helper program to its end; its exit description.
std::string Exec(const std::vector<std::string>& argv, const std::string& log) {
  ChildProcess p = ChildProcess::Start(argv, log);
  EXPECT_TRUE(p.WaitFor(std::chrono::minutes(2))) << argv[0] << " still running";
  return p.ExitDescription();
}

// Unmounts (lazily) on every exit of the test that mounted it.
struct Unmount {
  std::string path;
  ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
};

// The records a run that could not write its out dir printed on stderr (cli.cc's
// ReportUnsaved); a parse error or an empty array when it printed none.
nlohmann::json PrintedRecords(const std::string& log) {
  const std::string marker = "so none is lost:\n";
  const size_t at = log.find(marker);
  if (at == std::string::npos) return nlohmann::json::array();
  const size_t begin = at + marker.size();
  return nlohmann::json::parse(log.substr(begin, log.find("\n]", begin) + 2 - begin));
}

// A broken agent build (a static binary that just exits) is /init: the kernel panics, and
// -no-reboot with panic=-1 ends QEMU. The records name the panic by its console line.
TEST(FaultMatrixTest, AGuestKernelPanicIsNamedByItsConsoleLine) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("fault-panic");
  const std::string agent = dir + "/exits-at-once";
  WriteFile(dir + "/exit.c", "int main(void) { return 1; }\n");
  ASSERT_EQ(Exec({"cc", "-static", "-O2", "-o", agent, dir + "/exit.c"}, dir + "/cc.log"),
            "exited with status 0")
      << Slurp(dir + "/cc.log");
  const std::string out = dir + "/out";
  const CliRun run = RunCli({"run", ThreeJobScenario(dir, "panic"), "--out", out, "--agent", agent,
                             "--image-cache", dir + "/images", "--work-dir", dir},
                            dir + "/cli.log");
  EXPECT_EQ(run.exit, "exited with status 3") << run.log;
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Failed);
    EXPECT_EQ(r.error.rfind("the guest did not boot: machine ", 0), 0u) << r.error;
    EXPECT_NE(r.error.find(": the guest kernel panicked (Kernel panic - not syncing: Attempted "
                           "to kill init! exitcode=0x00000100), then QEMU exited"),
              std::string::npos)
        << r.error;
  }
  EXPECT_NE(Slurp(out + "/" + records[0].console_log).find("Kernel panic"), std::string::npos);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

// libvirtd (a private second daemon) SIGKILLed while a job runs: libvirt leaves the
// domain's QEMU running, so storbed names the lost daemon, stops that QEMU itself and
// removes the machine's files from the pool dir.
TEST(FaultMatrixTest, LibvirtdKilledMidRunIsNamedAndItsQemuStopped) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  auto second = testing::SecondLibvirtd::Start(&why);
  if (!second) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("fault-libvirtd");
  const std::string work = dir + "/work";
  fs::create_directories(work);
  const std::string inventory = WriteFile(dir + "/inventory.json", R"({"hosts": [
      {"name": "second", "uri": ")" + second->uri() + R"(", "max_guests": 1,
       "pool_dir": ")" + second->pool_dir() + R"("}]})");
  const std::string out = dir + "/out";
  int qemu_pid = -1;
  const CliRun run = RunCli(
      {"run", ThreeJobScenario(dir, "lostd"), "--inventory", inventory, "--out", out, "--accel",
       "tcg", "--work-dir", work, "--image-cache", testing::ImageCacheDir()},
      dir + "/cli.log", [&](ChildProcess&) {
        WaitUntilUnderWay(dir + "/cli.log", "002-virtio-blk-long on");
        const auto pids = testing::QemuPidsMentioning(work);
        ASSERT_EQ(pids.size(), 1u);
        qemu_pid = pids[0];
        ASSERT_EQ(kill(second->pid(), SIGKILL), 0);
      });
  EXPECT_EQ(run.exit, "exited with status 3") << run.log;
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  EXPECT_EQ(records[1].status, RunStatus::Failed);
  EXPECT_EQ(records[1].error.rfind("lost the connection to libvirtd at " + second->uri() +
                                       " while domain storbed-",
                                   0),
            0u)
      << records[1].error;
  EXPECT_NE(records[1].error.find("ran: the daemon stopped or died, so the domain cannot be "
                                  "controlled; storbed stops its QEMU (pid " +
                                  std::to_string(qemu_pid) + ") itself"),
            std::string::npos)
      << records[1].error;
  EXPECT_EQ(records[2].status, RunStatus::Skipped);
  EXPECT_EQ(records[2].error, "the connection to libvirtd was lost during 002-virtio-blk-long");
  EXPECT_TRUE(testing::QemuPidsMentioning(work).empty());
  for (const auto& e : fs::directory_iterator(second->pool_dir()))
    EXPECT_EQ(e.path().string().find(".console.log"), std::string::npos) << e.path();
  EXPECT_TRUE(fs::is_empty(work));
}

// Polls `log` every 10 ms (WaitForLogLine's 200 ms is too slow to catch a fill).
bool WaitQuicklyForLogLine(const std::string& log, const std::string& line) {
  const auto deadline = Clock::now() + std::chrono::minutes(3);
  while (Slurp(log).find(line) == std::string::npos) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The work dir (an ext4 of its own) passes the free-space check, then another writer
// takes the space while storbed fills the second backing (400 MiB of data, a second or
// more). The run stops before any boot, naming the file and ENOSPC, and the work dir is
// left as found.
TEST(FaultMatrixTest, AWorkDirFilledByAnotherWriterFailsTheBackingAndLeavesNothing) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small filesystem needs root";
  const std::string dir = testing::ScratchDir("fault-enospc");
  const std::string image = dir + "/small.ext4";
  const std::string work = dir + "/work";
  fs::create_directories(work);
  // The 512 MiB margin, both backings and ext4's own blocks, with 20 MiB to spare.
  std::filesystem::resize_file(WriteFile(image, ""), 1000ull << 20);
  ASSERT_EQ(Exec({"mkfs.ext4", "-q", "-F", "-m", "0", image}, dir + "/mkfs.log"),
            "exited with status 0")
      << Slurp(dir + "/mkfs.log");
  ASSERT_EQ(Exec({"mount", "-o", "loop", image, work}, dir + "/mount.log"), "exited with status 0")
      << Slurp(dir + "/mount.log");
  const Unmount unmount{work};
  const std::string scenario = WriteFile(dir + "/scenario.json", R"({
    "name": "enospc", "targets": ["virtio-blk"], "machine": {"memory": "512m"},
    "disk": {"size": ["8m", "400m"]},
    "jobs": [{"name": "first", "bs": "64k", "io_size": "1m"}]})");
  const std::string out = dir + "/out";
  const std::string filler = work + "/filler";
  const CliRun run = RunCli(
      {"run", scenario, "--out", out, "--work-dir", work, "--image-cache",
       testing::ImageCacheDir()},
      dir + "/cli.log", [&](ChildProcess&) {
        ASSERT_TRUE(WaitQuicklyForLogLine(dir + "/cli.log", "preparing backing (400 MiB)"))
            << Slurp(dir + "/cli.log");
        // Take every free MiB, in ever smaller pieces, while storbed's fill races us.
        int pieces = 0;
        for (off_t piece = off_t{256} << 20; piece >= (off_t{1} << 20);) {
          const std::string path = filler + "-" + std::to_string(pieces);
          UniqueFd fd(::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
          if (::fallocate(fd.get(), 0, 0, piece) == 0) {
            ++pieces;
          } else {
            fs::remove(path);
            piece /= 2;
          }
        }
        EXPECT_GT(pieces, 0);
      });
  for (const auto& e : fs::directory_iterator(work))
    if (e.path().filename().string().rfind("filler", 0) == 0) fs::remove(e.path());
  // Backings are made before the first boot: the run ends there, having measured nothing.
  EXPECT_EQ(run.exit, "exited with status 1") << run.log;
  EXPECT_NE(run.log.find("storbed: cannot fill backing file " + work + "/storbed-work-"),
            std::string::npos)
      << run.log;
  EXPECT_NE(run.log.find("/backing-1.raw: No space left on device"), std::string::npos) << run.log;
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(work))
    if (e.path().filename() != "lost+found") left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << left.front();
}

// The out dir (a 4 MiB tmpfs) fills up while a job runs: results.json cannot take the
// next records. They stay in memory, the run goes on, and at the end storbed exits 1
// naming the out dir and the error and prints every record as JSON: none is lost. The
// results.json on disk is the last whole one, and no temp file is left.
TEST(FaultMatrixTest, AFullOutDirLosesNoRecord) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  const std::string dir = testing::ScratchDir("fault-outfull");
  const std::string mnt = dir + "/outfs";
  fs::create_directories(mnt);
  ASSERT_EQ(Exec({"mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", mnt},
                 dir + "/mount.log"),
            "exited with status 0")
      << Slurp(dir + "/mount.log");
  const Unmount unmount{mnt};
  const std::string out = mnt + "/out";
  const std::string filler = mnt + "/filler";
  const CliRun run = RunCli(
      {"run", ThreeJobScenario(dir, "outfull", 6), "--out", out, "--work-dir", dir,
       "--image-cache", testing::ImageCacheDir()},
      dir + "/cli.log", [&](ChildProcess&) {
        ASSERT_TRUE(testing::WaitForLogLine(dir + "/cli.log", "002-virtio-blk-long on"))
            << Slurp(dir + "/cli.log");
        std::ofstream(filler).close();
        const auto space = fs::space(mnt);
        ASSERT_EQ(Exec({"fallocate", "-l", std::to_string(space.available), filler},
                       dir + "/fallocate.log"),
                  "exited with status 0")
            << Slurp(dir + "/fallocate.log");
      });
  EXPECT_EQ(run.exit, "exited with status 1") << run.log;
  EXPECT_NE(run.log.find("storbed: " + out + " is not up to date: cannot write " + out +
                         "/results.json: No space left on device"),
            std::string::npos)
      << run.log;
  EXPECT_NE(run.log.find("002-virtio-blk-long: warning: results.json is not up to date"),
            std::string::npos)
      << run.log;
  const nlohmann::json printed = PrintedRecords(run.log);
  ASSERT_EQ(printed.size(), 3u) << run.log;
  EXPECT_EQ(printed[1]["run_id"], "002-virtio-blk-long");
  EXPECT_EQ(printed[1]["status"], "ok");
  fs::remove(filler);
  const auto on_disk = LoadResults(out);
  ASSERT_EQ(on_disk.size(), 1u);
  EXPECT_EQ(on_disk[0].status, RunStatus::Ok);
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

// A bare-metal run into an out dir too small for even its manifest (an 8 KiB tmpfs):
// the agent's output lives in the work dir, so its results are whole, and every record
// reaches stderr as JSON although none reached the disk.
TEST(FaultMatrixTest, ABareMetalRunIntoAFullOutDirPrintsEveryRecord) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs and a loop device need root";
  const std::string dir = testing::ScratchDir("fault-outfull-bare");
  const std::string mnt = dir + "/outfs";
  fs::create_directories(mnt);
  ASSERT_EQ(Exec({"mount", "-t", "tmpfs", "-o", "size=8k,mode=0700", "tmpfs", mnt},
                 dir + "/mount.log"),
            "exited with status 0")
      << Slurp(dir + "/mount.log");
  const Unmount unmount{mnt};
  const std::string scenario = WriteFile(dir + "/scenario.json", R"({
    "name": "barefull", "targets": ["bare-metal"], "disk": {"size": "16m"},
    "jobs": [{"name": "seq", "bs": "64k"},
             {"name": "rand", "pattern": "random", "bs": "4k", "io_size": "2m"}]})");
  const std::string out = mnt + "/out";
  const CliRun run = RunCli({"run", scenario, "--out", out, "--work-dir", dir}, dir + "/cli.log");
  EXPECT_EQ(run.exit, "exited with status 1") << run.log;
  const nlohmann::json printed = PrintedRecords(run.log);
  ASSERT_EQ(printed.size(), 2u) << run.log;
  for (const auto& r : printed) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    EXPECT_GT(r["result"]["ios"].get<uint64_t>(), 0u) << r.dump();
  }
  for (const auto& e : fs::recursive_directory_iterator(mnt))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("storbed-", 0) == 0) left.push_back(e.path());
  EXPECT_TRUE(left.empty()) << left.front();
}

}  // namespace fault_matrix_test
}  // namespace storbed

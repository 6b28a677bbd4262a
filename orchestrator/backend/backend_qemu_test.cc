#include "backend/backend_qemu.h"

#include <signal.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "backend/interrupt.h"
#include "backend/qemu_argv.h"
#include "file_read.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

// Pids of live processes whose command line mentions `needle` (our -name is unique).
std::vector<int> ProcessesMentioning(const std::string& needle) {
  std::vector<int> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // Not an istreambuf_iterator over an ifstream: it throws when the read fails, and the
    // read of a process that exits meanwhile fails with ESRCH (seen in CI).
    const std::string cmdline = ReadFileOrEmpty(entry.path() / "cmdline");
    if (cmdline.find(needle) != std::string::npos && std::stoi(name) != getpid()) {
      pids.push_back(std::stoi(name));
    }
  }
  return pids;
}

std::string FindHostKernel() {
  if (!fs::exists("/boot")) return "";
  for (const auto& e : fs::directory_iterator("/boot")) {
    if (e.path().filename().string().rfind("vmlinuz-", 0) == 0) return e.path();
  }
  return "";
}

class QemuBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    name_ = std::string("bt") + std::to_string(getpid()) + "-" + info->name();
    dir_ = ::testing::TempDir() + "/" + name_;
    fs::remove_all(dir_);
    spec_.name = name_;
    spec_.vcpus = 1;
    spec_.memory_mib = 256;
    spec_.kernel = "/nonexistent/vmlinuz";
    spec_.run_dir = dir_;
  }
  void TearDown() override {
    EXPECT_THAT(ProcessesMentioning("storbed-" + name_), ::testing::IsEmpty())
        << "a QEMU process was left behind";
    fs::remove_all(dir_);
  }

  std::string name_, dir_;
  MachineSpec spec_;
  QemuBackend backend_;
};

TEST_F(QemuBackendTest, MissingKernelThrowsMachineDiedWithStatusAndLog) {
  auto start = Clock::now();
  try {
    backend_.Start(spec_, 30s);
    FAIL() << "expected MachineDiedError";
  } catch (const MachineDiedError& e) {
    EXPECT_EQ(e.exit_description(), "exited with status 1");
    EXPECT_THAT(e.qemu_log_tail(), HasSubstr("could not open kernel file"));
    EXPECT_THAT(e.what(), HasSubstr("exited with status 1"));
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/vmlinuz"));
  }
  EXPECT_LT(Clock::now() - start, 10s) << "a dead QEMU must be noticed at once";
}

TEST_F(QemuBackendTest, InvalidSpecFailsBeforeStartingAnything) {
  spec_.disks.push_back(DiskSpec());
  spec_.disks.back().id = "d0";  // no backing
  EXPECT_THROW(backend_.Start(spec_, 5s), MachineSpecError);
  EXPECT_FALSE(fs::exists(dir_));
}

// A real kernel with no initramfs panics without an agent: the hello never comes. QEMU
// must have accepted every option (else MachineDiedError) and must be stopped afterwards.
TEST_F(QemuBackendTest, HelloTimeoutStopsQemuAndDisksAreAccepted) {
  spec_.kernel = FindHostKernel();
  if (spec_.kernel.empty()) GTEST_SKIP() << "no /boot/vmlinuz-* on this host";
  fs::create_directories(dir_);
  for (const char* f : {"a.raw", "b.raw"}) {
    std::ofstream(dir_ + "/" + f).close();
    fs::resize_file(dir_ + "/" + f, 16 << 20);
  }
  DiskSpec v;
  v.id = "v0";
  v.backing = dir_ + "/a.raw";
  v.num_queues = 2;
  v.queue_size = 128;
  v.iothread = true;
  v.aio = Aio::IoUring;
  v.request_merging = false;
  DiskSpec n;
  n.id = "n0";
  n.bus = Bus::Nvme;
  n.backing = dir_ + "/b.raw";
  n.aio = Aio::Native;
  spec_.disks = {v, n};
  spec_.cmdline = "console=ttyS0";
  try {
    backend_.Start(spec_, 3s);
    FAIL() << "expected AgentTimeoutError";
  } catch (const AgentTimeoutError& e) {
    EXPECT_EQ(e.request_type(), "hello");
  }
}

TEST_F(QemuBackendTest, CtrlCDuringBootStopsQemu) {
  spec_.kernel = FindHostKernel();
  if (spec_.kernel.empty()) GTEST_SKIP() << "no /boot/vmlinuz-* on this host";
  InstallInterruptHandlers();
  ClearInterrupted();
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(1s);
    kill(getpid(), SIGINT);
  });
  auto start = Clock::now();
  EXPECT_THROW(backend_.Start(spec_, 60s), InterruptedError);
  EXPECT_LT(Clock::now() - start, 10s);
  ctrl_c.join();
  ClearInterrupted();
}

TEST_F(QemuBackendTest, KvmProbeReportsFailure) {
  KvmGuestProbe probe = MakeKvmBootProbe(backend_, spec_, 5s);
  std::string why;
  EXPECT_FALSE(probe(&why));
  EXPECT_FALSE(why.empty());
}

TEST(QemuVersionTest, FirstLineOfVersion) {
  EXPECT_THAT(QemuVersionOf("qemu-system-x86_64"), ::testing::StartsWith("QEMU emulator version"));
  EXPECT_THROW(QemuVersionOf("storbed-no-such-qemu"), std::runtime_error);
}

TEST(TailOfFileTest, LastLines) {
  std::string path = ::testing::TempDir() + "/tail-" + std::to_string(getpid());
  {
    std::ofstream out(path);
    for (int i = 1; i <= 30; ++i) out << "line " << i << "\n";
  }
  std::string tail = TailOfFile(path, 2);
  EXPECT_EQ(tail, "line 29\nline 30\n");
  EXPECT_EQ(TailOfFile(path + ".missing", 20), "");
  fs::remove(path);
}

}  // namespace
}  // namespace storbed

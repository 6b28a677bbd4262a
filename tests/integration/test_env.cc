#include "test_env.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "backend/child_process.h"
#include "cleanup/process_table.h"
#include "file_read.h"
#include "images/kernel_locator.h"
#include "test_paths.h"

namespace storbed::testing {

std::string AgentPath() { return TestAgentPath(); }
std::string CliPath() { return TestCliPath(); }

namespace {

std::vector<std::string>& ScratchDirs() {
  static std::vector<std::string> dirs;
  return dirs;
}

// Removes this process's scratch directories when every test passed; a failed test's
// backing, console logs and results stay for a look.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!::testing::UnitTest::GetInstance()->Passed()) return;
    for (const auto& dir : ScratchDirs()) std::filesystem::remove_all(dir);
  }
};

[[maybe_unused]] ::testing::Environment* const kScratchCleanup =
    ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

}  // namespace

std::string ScratchDir(const std::string& name) {
  const std::string dir = "/var/tmp/storbed-test-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ScratchDirs().push_back(dir);
  return dir;
}

GuestImage SharedGuestImage(std::string* why, const std::vector<std::string>& modules) {
  struct Built {
    GuestImage image;
    std::string error;
  };
  static std::mutex mutex;
  static std::map<std::vector<std::string>, Built> built;  // per module set, per process
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = built.find(modules);
  if (it == built.end()) {
    Built b;
    try {
      ImageRequest request;
      request.kernel = FindNewestHostKernel();
      request.agent_path = AgentPath();
      request.modules = modules;
      request.cache_dir = ImageCacheDir();
      b.image = BuildGuestImage(request);
    } catch (const std::exception& e) {
      b.error = e.what();
    }
    it = built.emplace(modules, std::move(b)).first;
  }
  *why = it->second.error;
  return it->second.image;
}

MachineSpec TestGuestSpec(const std::string& name, const GuestImage& image,
                          const std::string& run_dir) {
  MachineSpec spec;
  spec.name = name;
  spec.vcpus = 2;
  spec.memory_mib = 512;
  spec.accel = Accel::Tcg;
  // The vmlinux through its PVH note, as `storbed run` boots it (docs/boot.md).
  spec.kernel = image.boot_kernel_path.empty() ? image.kernel_path : image.boot_kernel_path;
  spec.initrd = image.initrd_path;
  spec.cmdline = kGuestCmdline;
  spec.run_dir = run_dir;
  return spec;
}

std::string ImageCacheDir() { return TestBinaryDir() + "/test-image-cache"; }

size_t Occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size()))
    ++n;
  return n;
}

std::string Slurp(const std::string& path) { return ReadFileOrEmpty(path); }

std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

nlohmann::json ManifestOf(const std::string& out_dir) {
  return nlohmann::json::parse(std::ifstream(out_dir + "/manifest.json"));
}

CliRun RunCli(const std::vector<std::string>& args, const std::string& log,
              const std::function<void(ChildProcess&)>& while_running,
              std::chrono::minutes timeout) {
  std::vector<std::string> argv{CliPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess cli = ChildProcess::Start(argv, log);
  if (while_running) while_running(cli);
  EXPECT_TRUE(cli.WaitFor(timeout)) << "storbed " << args.front() << " still running";
  return {cli.ExitDescription(), Slurp(log)};
}

bool WaitForLogLine(const std::string& log, const std::string& line,
                    std::chrono::minutes timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Slurp(log).find(line) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

std::vector<int> QemuPidsMentioning(const std::string& needle) {
  // The table cleanup reads: it skips a process that exits while /proc is read.
  const ProcessTable table = ProcessTable::Read("/proc", /*with_fds=*/false);
  std::vector<int> pids;
  for (const ProcessInfo& p : table.processes()) {
    if (p.argv.empty() || p.argv[0].find("qemu-system") == std::string::npos) continue;
    std::string cmdline;
    for (const std::string& arg : p.argv) cmdline += arg + ' ';
    if (cmdline.find(needle) != std::string::npos) pids.push_back(p.pid);
  }
  return pids;
}

}  // namespace storbed::testing

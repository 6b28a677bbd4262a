// Helpers shared by the cleanup tests only: a fake host in a temporary directory, with a
// /proc tree (stat, cmdline, fd links, btime), a /sys tree of loop devices and a work root,
// and HostActions that record calls instead of acting.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cleanup/host_actions.h"
#include "owner_marker.h"

namespace storbed::cleanup_test {

namespace fs = std::filesystem;

inline void WriteFile(const fs::path& path, const std::string& data) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

class FakeHost {
 public:
  FakeHost() {
    std::string pattern = (fs::temp_directory_path() / "storbed-cleanup-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
    fs::create_directories(proc());
    fs::create_directories(sys() + "/block");
    fs::create_directories(work());
    WriteFile(proc() + "/stat", "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n");
  }
  ~FakeHost() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  std::string proc() const { return root_ + "/proc"; }
  std::string sys() const { return root_ + "/sys"; }
  std::string work() const { return root_ + "/work"; }
  const std::string& root() const { return root_; }

  // A process; `fds` become /proc/<pid>/fd/N links (dangling is fine: only the text counts).
  void AddProcess(int pid, int ppid, uint64_t start_ticks, const std::vector<std::string>& argv,
                  const std::vector<std::string>& fds = {}, const std::string& comm = "proc") {
    const std::string dir = proc() + "/" + std::to_string(pid);
    WriteFile(dir + "/stat", std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) +
                                 " 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " +
                                 std::to_string(start_ticks) + " 0 0\n");
    std::string cmdline;
    for (const auto& a : argv) cmdline += a + '\0';
    WriteFile(dir + "/cmdline", cmdline);
    fs::create_directories(dir + "/fd");
    for (size_t i = 0; i < fds.size(); ++i)
      fs::create_symlink(fds[i], dir + "/fd/" + std::to_string(i));
  }

  void AddLoop(int n, const std::string& backing) {
    WriteFile(sys() + "/block/loop" + std::to_string(n) + "/loop/backing_file", backing + "\n");
  }
  void AddDetachedLoop(int n) {
    fs::create_directories(sys() + "/block/loop" + std::to_string(n) + "/queue");
  }

  // A storbed-work-<suffix> dir under work(), with an owner file unless `owner` is null.
  std::string AddWorkDir(const std::string& suffix, const OwnerMarker* owner) {
    const std::string dir = work() + "/storbed-work-" + suffix;
    fs::create_directories(dir);
    WriteFile(dir + "/backing.raw", "x");
    if (owner) WriteFile(dir + "/owner", FormatOwnerMarker(*owner));
    return dir;
  }

 private:
  std::string root_;
};

class RecordingActions : public HostActions {
 public:
  void KillProcess(int pid, uint64_t start_ticks) override {
    calls.push_back("kill " + std::to_string(pid) + "@" + std::to_string(start_ticks));
  }
  void DetachLoop(const std::string& device) override { calls.push_back("detach " + device); }
  void RemoveTree(const std::string& path) override { calls.push_back("rmtree " + path); }
  void RemoveFile(const std::string& path) override { calls.push_back("unlink " + path); }
  std::vector<std::string> calls;
};

}  // namespace storbed::cleanup_test

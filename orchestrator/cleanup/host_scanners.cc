#include "cleanup/host_scanners.h"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "cleanup/domain_owner.h"
#include "cleanup/loop_table.h"
#include "cleanup/process_table.h"
#include "cleanup/stale_work_dirs.h"
#include "file_read.h"
#include "libvirt/domain_xml.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::vector<WorkDirVerdict> CurrentVerdicts(const HostScanContext& c, const ProcessTable& table,
                                            const std::vector<AttachedLoop>& loops) {
  return JudgeWorkDirs(
      c.work_roots, WorkDirContext{.processes = table, .loops = loops, .this_host = c.this_host});
}

std::string RootsText(const std::vector<std::string>& roots) {
  std::string text;
  for (const auto& r : roots) text += (text.empty() ? "" : ", ") + r;
  return text;
}

class StrayQemuScanner : public LeftoverScanner {
 public:
  explicit StrayQemuScanner(HostScanContext c) : c_(std::move(c)) {}
  std::string Scope() const override { return "QEMU processes"; }

  std::vector<Leftover> Find() override {
    const ProcessTable table = ProcessTable::Read(c_.proc_root, /*with_fds=*/true);
    const auto stale = StaleOnly(CurrentVerdicts(c_, table, ReadAttachedLoops(c_.sys_root)));
    std::vector<Leftover> found;
    for (const auto& p : table.processes()) {
      const std::string name = StorbedQemuName(p.argv);
      if (name.empty()) {
        if (auto item = StaleLibvirtQemu(p, table)) found.push_back(*item);
        continue;
      }
      std::string reason = StaleDirUsed(p, stale);
      if (reason.empty()) reason = Orphaned(p, table);
      if (reason.empty()) continue;
      found.push_back(Leftover{.kind = LeftoverKind::QemuProcess,
                               .id = std::to_string(p.pid),
                               .label = "QEMU pid " + std::to_string(p.pid) + " (" + name + ")",
                               .reason = reason,
                               .needs_force = false,
                               .process_start = p.start_ticks});
    }
    return found;
  }

  void Remove(const Leftover& item) override {
    c_.actions->KillProcess(std::stoi(item.id), item.process_start);
  }

 private:
  static std::string StaleDirUsed(const ProcessInfo& p, const std::vector<WorkDirVerdict>& stale) {
    for (const auto& dir : stale)
      for (const auto& arg : p.argv)
        if (arg.find(dir.path + "/") != std::string::npos)
          return "uses " + dir.path + ", whose " + dir.reason;
    return "";
  }

  // QEMU backend processes are children of storbed. A parent that is pid 1, missing, or
  // younger than the child is not the storbed that started it: that one is gone. (A
  // subreaper other than pid 1 looks like a parent; such a QEMU is left alone.)
  static std::string Orphaned(const ProcessInfo& p, const ProcessTable& table) {
    const ProcessInfo* parent = table.Find(p.ppid);
    if (p.ppid == 1) return "its storbed is gone (reparented to pid 1)";
    if (parent == nullptr) return "its parent pid " + std::to_string(p.ppid) + " is gone";
    if (parent->start_ticks > p.start_ticks)
      return "its storbed is gone (reparented to pid " + std::to_string(p.ppid) + ")";
    return "";
  }

  // A libvirt-started QEMU of a run whose owner is gone, judged by the status XML.
  std::optional<Leftover> StaleLibvirtQemu(const ProcessInfo& p, const ProcessTable& table) const {
    const std::string domain = LibvirtStorbedDomain(p.argv);
    if (domain.empty()) return std::nullopt;
    const std::optional<std::string> xml =
        TryReadFile(c_.libvirt_status_dir + "/" + domain + ".xml");
    if (!xml) return std::nullopt;
    const OwnerVerdict verdict = JudgeRunOwner(OwnerOf(*xml), table, c_.this_host);
    if (verdict.state != OwnerState::Gone) return std::nullopt;
    return Leftover{.kind = LeftoverKind::QemuProcess,
                    .id = std::to_string(p.pid),
                    .label = "QEMU pid " + std::to_string(p.pid) + " (libvirt domain " + domain + ")",
                    .reason = "its run's " + verdict.reason + " (libvirt's status file names it)",
                    .needs_force = false,
                    .process_start = p.start_ticks};
  }

  HostScanContext c_;
};

class LoopScanner : public LeftoverScanner {
 public:
  explicit LoopScanner(HostScanContext c) : c_(std::move(c)) {}
  std::string Scope() const override { return "loop devices"; }

  std::vector<Leftover> Find() override {
    const ProcessTable table = ProcessTable::Read(c_.proc_root, /*with_fds=*/true);
    const auto loops = ReadAttachedLoops(c_.sys_root);
    const auto stale = StaleOnly(CurrentVerdicts(c_, table, loops));
    std::vector<Leftover> found;
    for (const auto& loop : loops)
      for (const auto& dir : stale)
        if (PathIsInside(loop.backing_file, dir.path)) {
          found.push_back(
              Leftover{.kind = LeftoverKind::LoopDevice,
                       .id = loop.device,
                       .label = "loop device " + loop.device + " over " + loop.backing_file,
                       .reason = "its work dir: " + dir.reason});
          break;
        }
    return found;
  }

  void Remove(const Leftover& item) override { c_.actions->DetachLoop(item.id); }

 private:
  HostScanContext c_;
};

class WorkDirScanner : public LeftoverScanner {
 public:
  explicit WorkDirScanner(HostScanContext c) : c_(std::move(c)) {}
  std::string Scope() const override { return "work dirs in " + RootsText(c_.work_roots); }

  std::vector<Leftover> Find() override {
    const ProcessTable table = ProcessTable::Read(c_.proc_root, /*with_fds=*/true);
    std::vector<Leftover> found;
    for (const auto& v : CurrentVerdicts(c_, table, ReadAttachedLoops(c_.sys_root))) {
      if (v.state == WorkDirState::Live) continue;
      found.push_back(Leftover{.kind = LeftoverKind::WorkDir,
                               .id = v.path,
                               .label = "work dir " + v.path,
                               .reason = v.reason,
                               .needs_force = v.state == WorkDirState::Elsewhere});
    }
    return found;
  }

  void Remove(const Leftover& item) override { c_.actions->RemoveTree(item.id); }

 private:
  HostScanContext c_;
};

class SocketScanner : public LeftoverScanner {
 public:
  explicit SocketScanner(HostScanContext c) : c_(std::move(c)) {}
  std::string Scope() const override { return "sockets in " + RootsText(c_.results_dirs); }

  std::vector<Leftover> Find() override {
    if (c_.results_dirs.empty()) return {};
    const ProcessTable table = ProcessTable::Read(c_.proc_root, /*with_fds=*/false);
    const std::set<std::string> bound = BoundUnixSockets(c_.proc_root);
    std::vector<Leftover> found;
    for (const auto& root : c_.results_dirs) {
      std::error_code ec;
      if (!fs::is_directory(root, ec))
        throw std::runtime_error("results dir " + root + " is not a directory");
      // Not following symlinks: only what lies inside the results dir itself.
      for (auto it = fs::recursive_directory_iterator(root, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it.depth() >= 2) it.disable_recursion_pending();
        const std::string name = it->path().filename().string();
        if (name != "agent.sock" && name != "qmp.sock") continue;
        std::error_code st_ec;
        if (!fs::is_socket(fs::symlink_status(it->path(), st_ec))) continue;
        const std::string path = fs::absolute(it->path()).lexically_normal().string();
        if (NamedByAProcess(path, table) || bound.count(path) != 0) continue;
        found.push_back(Leftover{.kind = LeftoverKind::Socket,
                                 .id = path,
                                 .label = "socket " + path,
                                 .reason = "no running QEMU uses it"});
      }
    }
    return found;
  }

  void Remove(const Leftover& item) override { c_.actions->RemoveFile(item.id); }

 private:
  // The paths of the unix sockets some process has bound and not closed: the last field of
  // each /proc/net/unix line. A file left by a dead QEMU is not listed; a live socket of
  // any process (another program's qmp.sock, a QEMU started by hand) is.
  static std::set<std::string> BoundUnixSockets(const std::string& proc_root) {
    std::set<std::string> paths;
    std::istringstream lines(ReadFileOrEmpty(proc_root + "/net/unix"));
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string field, path;
      for (int i = 0; fields >> field; ++i)
        if (i == 7) path = field;
      if (!path.empty() && path[0] == '/') paths.insert(path);
    }
    return paths;
  }

  // QEMU's argv names its sockets, with commas doubled (backend/qemu_argv.cc).
  static bool NamedByAProcess(const std::string& path, const ProcessTable& table) {
    std::string escaped;
    for (char c : path) escaped += c == ',' ? std::string(",,") : std::string(1, c);
    for (const auto& p : table.processes())
      for (const auto& arg : p.argv)
        if (arg.find(path) != std::string::npos || arg.find(escaped) != std::string::npos)
          return true;
    return false;
  }

  HostScanContext c_;
};

}  // namespace

std::string LibvirtStorbedDomain(const std::vector<std::string>& argv) {
  if (argv.empty() || fs::path(argv[0]).filename().string().rfind("qemu-system-", 0) != 0)
    return "";
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "-name" && argv[i + 1].rfind("guest=storbed-", 0) == 0)
      return argv[i + 1].substr(6, argv[i + 1].find(',') - 6);
  return "";
}

std::string StorbedQemuName(const std::vector<std::string>& argv) {
  if (argv.empty() || fs::path(argv[0]).filename().string().rfind("qemu-system-", 0) != 0)
    return "";
  std::string name;
  bool agent_port = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "-name" && i + 1 < argv.size() && argv[i + 1].rfind("storbed-", 0) == 0)
      name = argv[i + 1].substr(0, argv[i + 1].find(','));
    if (argv[i].find("name=org.storbed.agent.") != std::string::npos) agent_port = true;
  }
  return agent_port ? name : "";
}

std::unique_ptr<LeftoverScanner> MakeStrayQemuScanner(const HostScanContext& context) {
  return std::make_unique<StrayQemuScanner>(context);
}
std::unique_ptr<LeftoverScanner> MakeLoopScanner(const HostScanContext& context) {
  return std::make_unique<LoopScanner>(context);
}
std::unique_ptr<LeftoverScanner> MakeWorkDirScanner(const HostScanContext& context) {
  return std::make_unique<WorkDirScanner>(context);
}
std::unique_ptr<LeftoverScanner> MakeSocketScanner(const HostScanContext& context) {
  return std::make_unique<SocketScanner>(context);
}

}  // namespace storbed

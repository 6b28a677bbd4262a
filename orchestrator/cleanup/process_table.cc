#include "cleanup/process_table.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "file_read.h"
#include "proc_stat.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> SplitNul(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\0') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::optional<uint64_t> ReadBootTime(const fs::path& proc_root) {
  std::istringstream in(ReadFileOrEmpty(proc_root / "stat"));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("btime ", 0) == 0) return std::stoull(line.substr(6));
  return std::nullopt;
}

}  // namespace

ProcessTable ProcessTable::Read(const std::string& proc_root, bool with_fds) {
  ProcessTable table;
  table.boot_time_ = ReadBootTime(proc_root);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(proc_root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    std::string line = ReadFileOrEmpty(entry.path() / "stat");
    const auto stat = ParseProcStat(line);
    if (!stat) continue;  // exited between the listing and the read
    ProcessInfo p{.pid = stat->pid,
                  .ppid = stat->ppid,
                  .start_ticks = stat->start_ticks,
                  .comm = stat->comm,
                  .argv = SplitNul(ReadFileOrEmpty(entry.path() / "cmdline")),
                  .open_files = {}};
    if (with_fds) {
      std::error_code fd_ec;
      for (const auto& fd : fs::directory_iterator(entry.path() / "fd", fd_ec)) {
        std::error_code link_ec;
        const fs::path target = fs::read_symlink(fd.path(), link_ec);
        if (!link_ec) p.open_files.push_back(target.string());
      }
    }
    table.processes_.push_back(std::move(p));
  }
  std::sort(table.processes_.begin(), table.processes_.end(),
            [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return table;
}

const ProcessInfo* ProcessTable::Find(int pid) const {
  for (const auto& p : processes_)
    if (p.pid == pid) return &p;
  return nullptr;
}

bool ProcessTable::IsAlive(const OwnerMarker& owner) const {
  const ProcessInfo* p = Find(owner.pid);
  return p != nullptr && p->start_ticks == owner.start_ticks;
}

std::optional<double> ProcessTable::StartedAt(const ProcessInfo& p) const {
  if (!boot_time_) return std::nullopt;
  static const long ticks = sysconf(_SC_CLK_TCK);
  return static_cast<double>(*boot_time_) + static_cast<double>(p.start_ticks) / ticks;
}

bool PathIsInside(const std::string& path, const std::string& dir) {
  const fs::path p = fs::absolute(path).lexically_normal();
  const fs::path d = fs::absolute(dir).lexically_normal();
  auto [dir_end, _] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  // A trailing slash leaves an empty last element in `d`.
  return dir_end == d.end() || (std::next(dir_end) == d.end() && dir_end->empty());
}

}  // namespace storbed

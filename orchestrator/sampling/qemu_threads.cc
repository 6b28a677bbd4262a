#include "sampling/qemu_threads.h"

#include <cctype>
#include <filesystem>
#include <sstream>

#include "file_read.h"

namespace storbed {
namespace {

std::string Chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

const char* const kClasses[] = {"vcpu", "iothread", "main", "worker", "other"};

}  // namespace

std::vector<RawThread> ProcThreadReader::ReadThreads(int pid) {
  namespace fs = std::filesystem;
  const fs::path task = fs::path(root_) / std::to_string(pid) / "task";
  std::error_code ec;
  fs::directory_iterator it(task, ec);
  if (ec) throw std::runtime_error("cannot list " + task.string() + ": " + ec.message());
  std::vector<RawThread> out;
  for (const fs::directory_entry& e : it) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    auto stat = TryReadFile(e.path() / "stat");
    if (!stat || stat->empty()) continue;  // the thread exited meanwhile
    RawThread t;
    t.tid = std::stoi(name);
    t.stat = std::move(*stat);
    t.comm = TryReadFile(e.path() / "comm").value_or("");
    out.push_back(std::move(t));
  }
  return out;
}

ThreadTimes ParseTaskStat(const std::string& line) {
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    throw HostProcParseError("task stat line has no (comm): " + line, line);
  }
  ThreadTimes t;
  try {
    t.tid = std::stoi(line.substr(0, open));
  } catch (const std::exception&) {
    throw HostProcParseError("task stat line does not start with a tid: " + line, line);
  }
  t.name = line.substr(open + 1, close - open - 1);
  // After ")": state is field 3; utime and stime are fields 14 and 15 (proc(5)).
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  std::string f;
  while (rest >> f && fields.size() < 13) fields.push_back(f);
  if (fields.size() < 13) {
    throw HostProcParseError("task stat line is truncated before stime: " + line, line);
  }
  try {
    size_t used = 0;
    t.utime_ticks = std::stoull(fields[11], &used);
    if (used != fields[11].size()) throw std::invalid_argument("utime");
    t.stime_ticks = std::stoull(fields[12], &used);
    if (used != fields[12].size()) throw std::invalid_argument("stime");
  } catch (const std::exception&) {
    throw HostProcParseError("task stat line has non-numeric utime/stime: " + line, line);
  }
  return t;
}

std::string ClassifyThread(const std::string& name, int tid, int pid) {
  if (tid == pid) return "main";
  // "CPU 0/KVM", "CPU 1/TCG" (one per vCPU; TCG's single-threaded mode is "ALL CPUs/TCG").
  if (StartsWith(name, "CPU ") || name == "ALL CPUs/TCG") return "vcpu";
  if (StartsWith(name, "IO ")) return "iothread";  // "IO <iothread id>", "IO mon_iothread"
  if (name == "worker") return "worker";           // the thread pool (aio=threads, ...)
  return "other";
}

ThreadSnapshot ParseThreads(int pid, const std::vector<RawThread>& raw) {
  ThreadSnapshot s;
  s.pid = pid;
  for (const RawThread& r : raw) {
    ThreadTimes t = ParseTaskStat(r.stat);
    // comm is the same name, but a stat line's copy is easier to get wrong; prefer comm.
    if (std::string c = Chomp(r.comm); !c.empty()) t.name = c;
    if (r.tid != 0 && r.tid != t.tid) {
      throw HostProcParseError(
          "task " + std::to_string(r.tid) + " stat names tid " + std::to_string(t.tid), r.stat);
    }
    s.threads[t.tid] = std::move(t);
  }
  return s;
}

std::map<std::string, double> CpuPercentByClass(const ThreadSnapshot& before,
                                                const ThreadSnapshot& after, double interval_s,
                                                long clk_tck, std::optional<std::string>* warning) {
  std::map<std::string, double> out;
  for (const char* c : kClasses) out[c] = 0;
  if (interval_s <= 0 || clk_tck <= 0) return out;
  bool any_named = false;
  for (const auto& [tid, t] : after.threads) {
    if (ClassifyThread(t.name, tid, after.pid) != "other" && tid != after.pid) any_named = true;
    if (t.name == "call_rcu") any_named = true;
    uint64_t prev = 0;
    if (auto it = before.threads.find(tid); it != before.threads.end()) {
      prev = it->second.utime_ticks + it->second.stime_ticks;
    }
    const uint64_t now = t.utime_ticks + t.stime_ticks;
    const uint64_t ticks = now >= prev ? now - prev : 0;  // a reused tid: count nothing
    out[ClassifyThread(t.name, tid, after.pid)] +=
        100.0 * static_cast<double>(ticks) / (interval_s * static_cast<double>(clk_tck));
  }
  if (warning != nullptr && after.threads.size() > 1 && !any_named) {
    *warning =
        "QEMU threads carry no names (start QEMU with -name ...,debug-threads=on): "
        "all but the main thread count as \"other\"";
  }
  return out;
}

}  // namespace storbed

// CPU use of QEMU's threads by class, from /proc/PID/task/*/{stat,comm}. Thread names
// come from QEMU's `-name ...,debug-threads=on` ("CPU 0/KVM", "IO io-d0", "worker",
// "call_rcu"); without it every thread is called after the binary ("qemu-system-x86").
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.h"

namespace storbed {

// A host /proc line that does not parse. raw() is the text. (The agent has its own
// ProcParseError for the guest's /proc; a distinct name keeps the two apart in a binary that
// links both.)
class HostProcParseError : public Error {
 public:
  HostProcParseError(const std::string& what, std::string raw)
      : Error(ErrorKind::Host, what), raw_(std::move(raw)) {}
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
};

struct RawThread {
  int tid = 0;
  std::string stat;  // /proc/PID/task/TID/stat
  std::string comm;  // /proc/PID/task/TID/comm (with its newline)
};

// Reads a process's threads. Threads that exit while being read are skipped.
class ThreadReader {
 public:
  virtual ~ThreadReader() = default;
  // Throws std::runtime_error when the process itself is gone.
  virtual std::vector<RawThread> ReadThreads(int pid) = 0;
};

// Reads <proc_root>/PID/task.
class ProcThreadReader : public ThreadReader {
 public:
  explicit ProcThreadReader(std::string proc_root = "/proc") : root_(std::move(proc_root)) {}
  std::vector<RawThread> ReadThreads(int pid) override;

 private:
  std::string root_;
};

struct ThreadTimes {
  int tid = 0;
  std::string name;  // comm without the newline
  uint64_t utime_ticks = 0, stime_ticks = 0;
};

// Parses a stat line; the name is between the first '(' and the LAST ')' because comm
// may itself hold spaces and parentheses. Throws HostProcParseError (truncated lines too).
ThreadTimes ParseTaskStat(const std::string& stat_line);

// "vcpu", "iothread", "main", "worker" or "other". The main loop is the thread whose
// tid is the pid.
std::string ClassifyThread(const std::string& name, int tid, int pid);

// One reading of all threads, keyed by tid.
struct ThreadSnapshot {
  int pid = 0;
  std::map<int, ThreadTimes> threads;
};
// Parses every thread (name from comm when present, else from stat). Throws HostProcParseError.
ThreadSnapshot ParseThreads(int pid, const std::vector<RawThread>& raw);

// CPU % per class between two snapshots: delta(utime+stime) / (interval_s * clk_tck) *
// 100; 100 is one CPU. Threads born in between count from zero. Every class appears.
// `warning` is set when no thread carries a QEMU name (debug-threads off).
std::map<std::string, double> CpuPercentByClass(const ThreadSnapshot& before,
                                                const ThreadSnapshot& after, double interval_s,
                                                long clk_tck,
                                                std::optional<std::string>* warning = nullptr);

}  // namespace storbed

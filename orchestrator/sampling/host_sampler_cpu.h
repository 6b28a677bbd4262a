// Host CPU use over a job's IO window, from the host's <proc_root>/stat: for every CPU and
// for all of them, the share of the window's ticks spent in user, nice, system, idle,
// iowait, irq, softirq and steal (mpstat's way: for a CPU online throughout, the share of
// the window's wall time). Results under "host_cpu" beside qemu_thread_cpu, timelines
// "host.cpu.<metric>" (all CPUs) and "host.cpuN.<metric>".
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace storbed {

inline constexpr int kAllCpus = -1;  // /proc/stat's "cpu" line, "all" in the results
inline constexpr std::array<const char*, 8> kCpuMetrics = {"user",   "nice", "system",  "idle",
                                                           "iowait", "irq",  "softirq", "steal"};

struct CpuTicks {
  int cpu = kAllCpus;
  std::array<uint64_t, kCpuMetrics.size()> ticks{};  // in kCpuMetrics' order
};

// The cpu lines of one /proc/stat reading.
struct ProcStatCpus {
  std::vector<CpuTicks> cpus;          // "cpu" first when present, then as listed
  std::vector<std::string> malformed;  // "cpu..." lines that did not parse, as read
};

// Parses /proc/stat text. A malformed cpu line goes to `malformed`; throws HostProcParseError
// (qemu_threads.h) only when no cpu line parses at all.
ProcStatCpus ParseProcStatCpus(const std::string& text);

// "all" for kAllCpus, else "cpu3".
std::string CpuName(int cpu);

// {"all": {"user": %, ...}, "cpu0": {...}} between two readings. A counter that steps
// back (iowait and idle do on NO_HZ kernels) counts as 0. A CPU whose ticks did not
// advance is left out; so is one in only one reading (offline or hotplugged in between),
// which is named in *left_out.
nlohmann::json CpuPercent(const ProcStatCpus& before, const ProcStatCpus& after,
                          std::vector<std::string>* left_out = nullptr);

}  // namespace storbed

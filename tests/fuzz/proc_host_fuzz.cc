// The host's /proc readers: /proc/diskstats (the L3 rung), /proc/stat cpu lines,
// QEMU's /proc/PID/task/*/stat, and the /proc/PID/stat line cleanup reads. Each returns,
// names the text as malformed (HostProcParseError, or diskstats' runtime_error), or reports
// "not available: <reason>": never wrong numbers from a crash.
#include <sstream>

#include "diskstats.h"
#include "fuzz_text.h"
#include "proc_stat.h"
#include "sampling/host_device.h"
#include "sampling/host_sampler_cpu.h"
#include "sampling/qemu_threads.h"
#include "split_snapshots.h"

namespace {

using namespace storbed;

void Diskstats(const std::string& before, const std::string& after) {
  try {
    ParseDiskstats(before);
    FindDisk(after, "/dev/vda");
  } catch (const std::runtime_error&) {
  }
  HostDeviceChain chain;
  chain.available = true;
  chain.chain = {"loop0", "vda"};
  chain.devices = {"vda", "nvme0n1"};
  HostDeviceLayer(chain, before, after, 0.5);  // never throws: !available with the reason
  HostInFlight(chain, after);
  HostFlushes(chain, before, after);
}

void CpuLines(const std::string& before, const std::string& after) {
  try {
    CpuPercent(ParseProcStatCpus(before), ParseProcStatCpus(after));
  } catch (const HostProcParseError&) {
  }
}

void TaskStats(const std::string& before, const std::string& after) {
  const auto threads = [](const std::string& text) {
    std::vector<RawThread> raw;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) raw.push_back({0, line, ""});
    return ParseThreads(1, raw);
  };
  try {
    CpuPercentByClass(threads(before), threads(after), 0.5, 100);
  } catch (const HostProcParseError&) {
  }
  std::istringstream lines(after);
  for (std::string line; std::getline(lines, line);) ParseProcStat(line);  // nullopt when bad
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [before, after] = fuzz::SplitSnapshots(fuzz::Text(data, size));
  Diskstats(before, after);
  CpuLines(before, after);
  TaskStats(before, after);
  return 0;
}

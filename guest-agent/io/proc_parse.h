// Parsers for the /proc and /sys texts the guest samplers read. Each throws
// ProcParseError naming the file and the bad or missing item, so a malformed or
// truncated file stops its sampler with a warning instead of giving wrong numbers.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace storbed {

class ProcParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// /sys/block/X/inflight: "<reads> <writes>"; returns their sum.
uint64_t ParseInflight(std::string_view text);

// The "Key: value kB" lines of /proc/meminfo for `keys`, in kB. Throws when one of
// them is missing or not a number.
std::map<std::string, uint64_t> ParseMeminfo(std::string_view text,
                                             const std::vector<std::string>& keys);

// The "key value" lines of /proc/vmstat for `required` (throws when one is missing)
// and `optional` (left out when absent: the set differs between kernels).
std::map<std::string, uint64_t> ParseVmstat(std::string_view text,
                                            const std::vector<std::string>& required,
                                            const std::vector<std::string>& optional);

// One "cpuN ..." line of /proc/stat, in USER_HZ ticks.
struct CpuTimes {
  int cpu = 0;
  uint64_t iowait = 0;
  uint64_t total = 0;  // user+nice+system+idle+iowait+irq+softirq+steal (guest is in user)
};
// Every per-CPU line (not the "cpu" total). Throws on a cpuN line with fewer than the
// eight fields every kernel since 2.6.11 has, or when there is no cpuN line at all.
std::vector<CpuTimes> ParseCpuTimes(std::string_view text);

}  // namespace storbed

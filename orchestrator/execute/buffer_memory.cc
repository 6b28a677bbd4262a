#include "execute/buffer_memory.h"

#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

#include "backend/disk_driver.h"
#include "engine_table.h"
#include "plan/run_plan.h"
#include "scenario/target_kind.h"

namespace storbed {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// a * b, saturating: a 16t mmap region times 64 jobs must not wrap to a small number.
uint64_t Times(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? kMax : out;
}

uint64_t Plus(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }

}  // namespace

std::string SizeText(uint64_t bytes) {
  static const char* const kSuffix[] = {"", "k", "m", "g", "t"};
  int i = 0;
  while (i < 4 && bytes >= (1ull << (10 * (i + 1)))) ++i;
  const uint64_t unit = 1ull << (10 * i);
  if (bytes % unit == 0) return std::to_string(bytes / unit) + kSuffix[i];
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%s", double(bytes) / double(unit), kSuffix[i]);
  return text;
}

BufferNeed JobBufferNeed(const JobSpec& job, uint64_t region_bytes) {
  const uint64_t depth = RowOf(job.engine).async ? job.iodepth : 1;
  BufferNeed need;
  need.bytes = Times(Times(job.bs, depth), job.numjobs);
  need.how = "bs " + SizeText(job.bs) + " x iodepth " + std::to_string(depth) + " x numjobs " +
             std::to_string(job.numjobs);
  if (job.engine == Engine::Mmap) {
    const uint64_t window =
        job.mmap_window != 0 ? job.mmap_window : (job.size != 0 ? job.size : region_bytes);
    need.bytes = Plus(need.bytes, Times(window, job.numjobs));
    need.how += " + mmap window " + SizeText(window) + " x numjobs " + std::to_string(job.numjobs);
  }
  return need;
}

std::optional<uint64_t> MemAvailableBytes(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    unsigned long long kib = 0;
    char unit[8] = {};
    if (std::sscanf(line.c_str(), "MemAvailable: %llu %7s", &kib, unit) >= 1)
      return Times(kib, 1024);
  }
  return std::nullopt;
}

std::string BufferMemoryProblem(const BufferNeed& need, uint64_t memory_bytes,
                                const std::string& memory_name) {
  const uint64_t limit = static_cast<uint64_t>(static_cast<unsigned __int128>(memory_bytes) *
                                               kBufferMemoryPercent / 100);
  if (need.bytes <= limit) return "";
  return need.how + " = " + (need.bytes == kMax ? "more than 16e" : SizeText(need.bytes)) +
         " of IO buffers, more than " + std::to_string(kBufferMemoryPercent) + "% of " +
         memory_name + " (" + SizeText(memory_bytes) +
         "); the rest is the kernel's and the page cache's: lower bs, iodepth or numjobs";
}

void CheckBufferMemory(const Scenario& s, const std::string& host_meminfo,
                       const BackingBytesFn& backing_bytes) {
  std::optional<uint64_t> host;
  bool host_read = false;
  std::set<std::string> seen;
  for (const PlannedRun& run : PlanScenario(s).runs) {
    const DiskConfig& disk = s.machines[run.machine].disk;
    const bool named = !disk.backing.empty() && DriverHasStorage(disk.driver) && backing_bytes;
    const uint64_t disk_bytes = named ? backing_bytes(disk.backing) : disk.image_bytes();
    const uint64_t region = disk_bytes > run.job.offset ? disk_bytes - run.job.offset : 0;
    const BufferNeed need = JobBufferNeed(run.job, region);
    const bool bare = run.target == TargetKind::BareMetal;
    const std::string key =
        need.how + "\n" + ToString(run.target) + "\n" + std::to_string(bare ? 0 : run.machine);
    if (!seen.insert(key).second) continue;
    std::string why;
    if (bare) {
      if (!host_read) host = MemAvailableBytes(host_meminfo), host_read = true;
      if (host) why = BufferMemoryProblem(need, *host, "this host's MemAvailable");
    } else {
      why =
          BufferMemoryProblem(need, s.machines[run.machine].machine.memory_bytes, "machine.memory");
    }
    if (!why.empty())
      throw ScenarioError(s.path + ": job \"" + run.job.name + "\" on " + ToString(run.target) +
                          ": " + why);
  }
}

}  // namespace storbed

// The memory a job's IO buffers take, checked before anything starts against the memory of
// the machine it runs on: a bare-metal job of bs 64m x iodepth 64 was OOM-killed and
// reported as "killed by signal 9", and a guest's ended in std::bad_alloc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "job.h"
#include "scenario/scenario.h"

namespace storbed {

// What a job holds in memory at once: bs x iodepth x numjobs (a synchronous engine keeps
// one IO in flight, whatever iodepth says), plus the mmap engine's mapped window (the
// region when mmap_window is 0) for each of numjobs. `how` names the factors.
struct BufferNeed {
  uint64_t bytes = 0;
  std::string how;  // "bs 64m x iodepth 64 x numjobs 1"
};

// `region_bytes`: the job's region where job.size is 0 (the disk's size).
BufferNeed JobBufferNeed(const JobSpec& job, uint64_t region_bytes);

// MemAvailable of /proc/meminfo's `text`, in bytes; nullopt when the line is missing.
std::optional<uint64_t> MemAvailableBytes(const std::string& text);

// The share of a machine's memory the buffers may take: the rest is the kernel's, the
// page cache's and (in a guest) the initramfs's, which holds the agent and the modules.
inline constexpr unsigned kBufferMemoryPercent = 50;

// "" when `need` fits in kBufferMemoryPercent of `memory_bytes`; else the reason, naming
// the memory as `memory_name` ("machine.memory", "this host's MemAvailable").
std::string BufferMemoryProblem(const BufferNeed& need, uint64_t memory_bytes,
                                const std::string& memory_name);

// Every planned run's buffers against its machine: machine.memory in a guest, the
// MemAvailable of `host_meminfo` (/proc/meminfo's text) on bare metal. A job's region
// (size 0: from its offset to the disk's end) is on the disk storbed makes
// (DiskConfig::image_bytes), or on the disk.backing the user named, as `backing_bytes`
// sizes it (a file's length, a device's end; unset: disk.size). Throws ScenarioError
// "FILE: job \"NAME\" on TARGET: reason" at the first that does not fit.
using BackingBytesFn = std::function<uint64_t(const std::string& path)>;
void CheckBufferMemory(const Scenario& scenario, const std::string& host_meminfo,
                       const BackingBytesFn& backing_bytes = {});

// 4096 -> "4k", 3 << 30 -> "3g", 1536 << 20 -> "1.5g": a size as the scenario writes it.
std::string SizeText(uint64_t bytes);

}  // namespace storbed

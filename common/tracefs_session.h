// A private tracefs instance that records the block tracepoints of one disk, on
// CLOCK_MONOTONIC, for one job. The trace clock is "mono", or "local" mapped onto
// CLOCK_MONOTONIC per CPU where reading the clocksource traps (trace_clock_map.h). Nothing of anyone else's tracing is touched: the
// instance is storbed's own (instances/storbed-<pid>-<n>), filtered in the kernel to the
// disk, and removed on every path out; where no tracefs is mounted, one is mounted on a
// private directory (in a mount namespace of the calling thread's own when asked, so a
// killed process leaves no mount) and unmounted after.
//
// Events are kept in the instance's ring buffer while the job runs and read after it:
// the reading and the kernel's text formatting cost nothing inside the IO phase. A buffer
// that fills drops the newest events (overwrite off), and the stop says how many were
// lost: such a capture is not complete, and is never read as if it were.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_trace_event.h"
#include "error.h"
#include "trace_clock_map.h"

namespace storbed {

// Tracing cannot start here; the message names what is missing ("no tracefs in this
// kernel", "tracing needs root: ...", "the kernel has no block tracepoints ...").
class BlockTraceSetupError : public Error {
 public:
  explicit BlockTraceSetupError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// Which trace clock: Auto takes Local where the clocksource is one whose every read traps
// into the hypervisor (hpet, acpi_pm) and every online CPU can be reached for its markers,
// else Mono.
enum class TraceClock { Auto, Mono, Local };
TraceClock ChooseTraceClock(TraceClock asked, const std::string& clocksource,
                            bool every_cpu_reachable);

struct BlockTraceRequest {
  uint32_t major = 0, minor = 0;  // the disk (whole disk: the tracepoints name it)
  uint64_t buffer_kb_per_cpu = 16 * 1024;
  // Mount tracefs (when none is mounted) in a new mount namespace of the calling thread.
  bool private_mount = true;
  TraceClock clock = TraceClock::Auto;
};

struct BlockTraceCapture {
  std::vector<BlockEvent> events;  // the disk's, in the order the trace printed them
  uint64_t lost_events = 0;        // dropped for a full buffer, over every CPU
  bool complete = true;            // false: lost events or a line cut short
  std::string why_incomplete;      // "2047 events lost (the trace buffer of 16384 KiB ...)"
  uint64_t buffer_kb_per_cpu = 0;
  std::string tracefs;  // where tracefs was found or mounted ("/sys/kernel/tracing")
  // "mono", or "local" (each event's time mapped onto CLOCK_MONOTONIC by its CPU's markers).
  std::string clock = "mono";
  uint64_t clock_uncertainty_ns = 0;  // the mapping's, beside the text's microsecond
};

// What the agent's job runner traces through: the real one (TracefsBlockTrace) or a fake.
class BlockTrace {
 public:
  virtual ~BlockTrace() = default;
  // Empties the buffer and starts recording (set up, not recording, until then).
  virtual void Begin() = 0;
  // Stops recording and reads what was recorded. Called once.
  virtual BlockTraceCapture Stop() = 0;
};

class TracefsBlockTrace : public BlockTrace {
 public:
  // Sets the instance up, not yet recording: everything tracing needs is checked here.
  // Throws BlockTraceSetupError naming what is missing.
  static std::unique_ptr<TracefsBlockTrace> Start(const BlockTraceRequest& request);
  ~TracefsBlockTrace() override;
  void Begin() override;
  BlockTraceCapture Stop() override;

 private:
  TracefsBlockTrace() = default;
  void Remove() noexcept;
  // Local clock: markers "storbed-sync N" (N its index in markers_) on every CPU of cpus_,
  // each between two CLOCK_MONOTONIC reads. "" or why they could not be written.
  std::string WriteClockMarkers();
  // Local clock: the events mapped onto CLOCK_MONOTONIC by the markers in `markers`.
  void MapOntoMonotonic(const std::vector<TraceMarker>& markers, BlockTraceCapture& c);

  std::string root_;        // the tracefs mount
  std::string mounted_;     // the directory we mounted tracefs on ("" when found mounted)
  std::string instance_;    // root_/instances/storbed-<pid>-<n>
  BlockTraceRequest request_;
  bool stopped_ = false;
  TraceClock clock_ = TraceClock::Mono;
  std::vector<int> cpus_;  // Local: the CPUs the markers are written on
  std::vector<ClockSyncSample> markers_;  // Local: before the events, then after
  size_t markers_before_ = 0;
};

// The ring buffer per CPU: a 16th of the memory available, spread over the CPUs, within
// 1 MiB .. 256 MiB (about 64 bytes an event, 5 events an IO).
uint64_t TraceBufferKbPerCpu(uint64_t mem_available_kb, unsigned cpus);
// /proc/meminfo's MemAvailable in KiB; 0 when it cannot be read.
uint64_t MemAvailableKb();

// The mount point of a mounted tracefs in `mounts` (text of /proc/self/mounts); "" when
// none. A debugfs mount's tracing/ counts too.
std::string TracefsInMounts(const std::string& mounts);

// Instances named storbed-<pid>-<n> under `instances_dir` whose process is gone (a killed
// run's): removed, so their buffers and enabled events go. Returns how many.
size_t RemoveStaleTraceInstances(const std::string& instances_dir);

}  // namespace storbed

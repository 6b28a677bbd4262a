// job.trace on a guest, the host's part (docs/tracing.md). Around the job: QEMU's trace
// events for the disk's bus go to a log file of this run (QMP trace-event-set-state, and
// HMP's logfile through QMP), and the host device under the backing is traced by storbed
// itself. After it: the agent's joined IOs are fetched (trace_fetch), QEMU's requests
// rebuilt from the log, and everything joined on the host's clock into the record.
//
// A layer that cannot be traced here never fails the run: it is named with its reason
// ("not traced: null-co has no device"), as the ladder does.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "execute/run_context.h"
#include "results/run_record.h"
#include "sampling/clock_sync.h"
#include "tracing/host_block_trace.h"
#include "tracing/io_path.h"
#include "tracing/qemu_requests.h"

namespace storbed {

class GuestJobTrace {
 public:
  // Before the job. `lba_bytes`: the guest disk's logical block size (NVMe's LBA).
  GuestJobTrace(RunContext& ctx, Machine& machine, const DiskSpec& disk, const JobSpec& job,
                const std::string& run_id, uint32_t lba_bytes);
  // Turns QEMU's events off and removes the log; stops the host trace. Never throws.
  ~GuestJobTrace();
  GuestJobTrace(const GuestJobTrace&) = delete;
  GuestJobTrace& operator=(const GuestJobTrace&) = delete;

  // When the job's reply came: QEMU's events off, the host device's trace read.
  void Stop();
  // With the result (and the ladder) in record: sets record.io_trace. Throws what the agent
  // link throws (a machine that went away); a trace that cannot be read is a warning.
  void Finish(RunRecord& record, const ClockOffset& link, const std::function<void()>& check);

 private:
  void StartQemu();
  void StartHostDevice();
  void QemuOff() noexcept;

  RunContext& ctx_;
  Machine& machine_;
  DiskSpec disk_;
  std::string run_id_;
  uint32_t lba_bytes_;
  bool detail_ = false;  // job.trace_detail
  std::vector<UntracedLayer> untraced_;
  std::vector<std::string> warnings_;
  std::optional<QemuBus> bus_;
  std::string qemu_log_;       // "" when QEMU is not traced
  bool qemu_on_ = false;
  int64_t realtime_to_mono_ns_ = 0;
  BackingMap backing_;
  std::unique_ptr<HostBlockTrace> host_;
  std::optional<BlockTraceCapture> host_capture_;
};

}  // namespace storbed

// Runs one job against its target: cache preparation (timed on its own), the IO
// phase with the job's engine and pattern, and the target's diskstats around it.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache_control.h"
#include "io_trace.h"
#include "job.h"
#include "protocol.h"
#include "result.h"
#include "tracefs_session.h"
#include "tunables_journal.h"

namespace storbed {

// A job that could not run: names the target, the syscall and the errno text.
class JobError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A job that cannot run as written (a value out of range, a target of the wrong kind),
// found before any IO: bad input, which the standalone agent exits 2 for.
class JobSpecError : public JobError {
 public:
  using JobError::JobError;
};

// The layer name of the agent on the host (bare metal, --standalone).
inline constexpr const char* kHostDeviceLayer = "host device";
// The layer name of the agent as PID 1 of a storbed guest (RunAsInit).
inline constexpr const char* kGuestBlockLayer = "guest block layer";

// Guest only for the guest's layer: an agent that is not PID 1 of a storbed guest runs
// on somebody's host, whose caches are not ours to drop.
AgentPlace PlaceOf(const std::string& layer);

// Brings the target's page cache into the requested state (PrepareCache, with `layer`
// saying where the agent runs). Returns the time it took and what it did, the scope
// named in the steps. Throws JobError.
Prepared PrepareTarget(const PrepareRequest& request, const std::string& layer);

// Runs spec (preparing the cache first as spec.cache says, timed separately into
// prepare_s). `layer` labels result.block: "guest block layer" in a guest, "host
// device" (kHostDeviceLayer) on bare metal, where queue tunables are written only to a
// device named as the target and restored afterwards. Throws JobError when the target
// cannot be opened or IO fails.
// job.trace: how the block trace starts (empty: the real tracefs one, in a private mount
// namespace when private_mount) and where the joined IOs go (null: dropped).
struct JobTracing {
  std::function<std::unique_ptr<BlockTrace>(const BlockTraceRequest&)> start;
  bool private_mount = true;
  std::vector<AgentTracedIo>* ios = nullptr;
};

// Told of the queue settings the host agent is about to change and when they are back:
// the standalone agent keeps a journal of them that outlives a SIGKILL (tunables_journal.h).
class TunablesRecorder {
 public:
  virtual ~TunablesRecorder() = default;
  // Before the first write. Throws to stop the job while nothing is changed yet.
  virtual void Changing(const TunablesJournal& originals) = 0;
  // After every original was written back.
  virtual void Restored() = 0;
};

JobResult RunJob(const JobSpec& spec, const std::string& layer, const JobTracing& tracing = {},
                 TunablesRecorder* recorder = nullptr);

}  // namespace storbed

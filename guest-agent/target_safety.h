// The standalone agent's checks of a job's target, before anything is changed or opened:
// the judgement storbed itself applies to a device it is asked to write (common/
// device_in_use.h), so the agent run by hand is as safe as the agent run by storbed.
#pragma once

#include <string>

#include "device_in_use.h"
#include "errors.h"
#include "job.h"
#include "unique_fd.h"

namespace storbed::agent {

// A target the agent will not touch: bad input, exit 2.
class TargetRefusedError : public AgentError {
 public:
  using AgentError::AgentError;
};

// Throws TargetRefusedError when `spec.target` is a block device the host is using
// (root filesystem, mounted, held, swap, opened exclusively), or when the job writes to a
// block device and `allow_writes` (--allow-writes) is false. Files are not judged: the
// user named the file, and a job on a file never reaches another filesystem's blocks.
void CheckStandaloneTarget(const JobSpec& spec, bool allow_writes,
                           const DeviceUseSources& sources = {});

// Holds `spec.target`, when it is a block device, with an exclusive open (O_EXCL) until
// the fd closes: between CheckStandaloneTarget and the job's end the host cannot mount it
// or give it to md, LVM or a VM, which claim it the same way (EBUSY); the job's own opens
// are not exclusive and still work. An empty fd for anything else. Throws
// TargetRefusedError when another holds it exclusively already (claimed since the check).
UniqueFd HoldStandaloneTarget(const JobSpec& spec);

}  // namespace storbed::agent

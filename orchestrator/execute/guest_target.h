// A guest target: boots one machine whose single disk sits on the run's backing,
// on the target's bus, and runs the target's jobs in it through the agent.
#pragma once

#include <vector>

#include "backend/accel.h"
#include "backend/backend.h"
#include "execute/run_context.h"
#include "images/image_builder.h"

namespace storbed {

// The serial storbed gives the disk under test, so it can find it in the guest.
inline constexpr const char* kTestDiskSerial = "storbed-d0";

// The machine a target runs on (exposed for tests and dry runs).
MachineSpec GuestMachineSpec(const RunContext& ctx, TargetKind target, const std::string& label,
                             const GuestImage& image, Accel accel, const std::string& run_dir);

// Runs `runs` (all of one guest target and machine combination) in one machine whose
// directory and manifest entry are named after `label` ("virtio-blk", "nvme-m2"). Failures
// are recorded, not thrown; throws InterruptedError on Ctrl-C after recording the run in
// flight, and LibvirtError, recording nothing, when the backend cannot start the machine
// (a host failure: the runs belong on another host).
void RunGuestTarget(RunContext& ctx, TargetKind target, const std::string& label,
                    const std::vector<PlannedRun>& runs,
                    const GuestImage& image, const AccelDecision& accel, Backend& backend);

}  // namespace storbed

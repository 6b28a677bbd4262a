// A guest target: boots one machine whose single disk sits on the run's backing,
// on the target's bus, and runs the target's jobs in it through the agent.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
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

// Which machine a guest target boots: the target, the label its directory and manifest
// entry are named after ("virtio-blk", "nvme-m2"), the guest image, the accelerator and the
// backend that starts it.
struct GuestTargetSetup {
  TargetKind target;
  std::string label;
  const GuestImage& image;
  AccelDecision accel;
  Backend& backend;
};

// A booted guest machine of a target and what it holds (a VFIO binding, a foreign image's
// overlay). Its runs may come in several calls: a machine kept across rounds (reboot
// per_machine) is paused between them. The RunContext must outlive it.
class GuestTarget {
 public:
  // Boots the machine. When the guest fails (it does not boot, its disk is not there)
  // records `runs` as failed and returns nullptr; throws InterruptedError, and LibvirtError
  // when the backend cannot start it (a host failure), as RunGuestTarget does.
  static std::unique_ptr<GuestTarget> Boot(RunContext& ctx, const GuestTargetSetup& setup,
                                           const std::vector<PlannedRun>& runs);
  ~GuestTarget();
  // Runs and records `runs`. False when the machine went away (the rest were recorded as
  // skipped): it must not run anything more.
  bool RunJobs(const std::vector<PlannedRun>& runs);
  // QMP stop and cont: a paused guest's clock (QEMU's virtual clock) stands still and its
  // vCPUs use no host CPU. Throw what the QMP call throws.
  void Pause();
  void Resume();
  // A healthy machine is shut down (a failure is a logged warning); an unhealthy one is
  // left to the destructor, which kills it.
  void Shutdown() noexcept;
  uint64_t MemoryBytes() const;
  const std::string& label() const { return label_; }

 private:
  struct Holdings;
  GuestTarget(RunContext& ctx, const GuestTargetSetup& setup);
  RunRecord BaseRecord(const PlannedRun& run) const;
  // Records every run as failed because of `why`.
  void FailAll(const std::vector<PlannedRun>& runs, const std::string& why);
  // The steps of Boot, in order. Each returns why the guest failed (the runs' failure
  // text), or nullopt when it went on.
  // Binds a passed-through PCI device to vfio-pci and takes its serial.
  std::optional<std::string> HandOverDevice();
  // A foreign image's overlay (and cloud-init seed) for the machine to boot from.
  std::optional<std::string> MakeForeignRoot();
  // Starts the machine, waits for the agent's hello and records it in the manifest.
  std::optional<std::string> StartMachine(const GuestImage& image);
  // Finds the disk under test among the guest's devices by its serial.
  std::optional<std::string> FindTestDisk();

  RunContext& ctx_;
  TargetKind target_;
  std::string label_, machine_dir_;
  AccelDecision accel_;
  Backend& backend_;
  MachineSpec spec_;
  std::string device_;  // the disk under test in the guest ("/dev/vdb")
  bool healthy_ = true;
  std::unique_ptr<Holdings> held_;
};

// How long a pause or resume may take.
inline constexpr std::chrono::seconds kQmpPauseTimeout{10};

// Runs `runs` (all of one guest target and machine combination) in one machine whose
// directory and manifest entry are named after `label` ("virtio-blk", "nvme-m2"). Failures
// are recorded, not thrown; throws InterruptedError on Ctrl-C after recording the run in
// flight, and LibvirtError, recording nothing, when the backend cannot start the machine
// (a host failure: the runs belong on another host).
void RunGuestTarget(RunContext& ctx, const GuestTargetSetup& setup,
                    const std::vector<PlannedRun>& runs);

}  // namespace storbed

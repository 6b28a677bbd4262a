#include "libvirt/pool_races.h"

#include <libvirt/virterror.h>

#include "libvirt/virt_handles.h"

namespace storbed {

void ThrowStatus(const std::string& uri, const std::string& operation, const VirStatus& s) {
  throw LibvirtError(uri, operation, s.message, s.code);
}

void EnsurePoolActive(PoolSetupCalls& calls, const std::string& uri, const std::string& pool,
                      const std::string& dir) {
  constexpr int kRounds = 200;  // x 50 ms; a dir pool builds and starts in milliseconds
  VirStatus race;               // the last refusal caused by another caller
  int lost_creates = 0;
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) calls.Pause();  // only a race brings us here
    VirStatus s = calls.Lookup();
    if (s.code == VIR_ERR_NO_STORAGE_POOL) {
      s = calls.CreateTransient();
      if (s.ok()) return;
      // The name (OPERATION_FAILED) or the dir (the same code) is taken, or the pool is
      // active already (OPERATION_INVALID): someone else was first, and the next lookup
      // finds their pool, unless its start failed and libvirt dropped it again. A pool of
      // another name at `dir` is never found: give up after a few rounds.
      const bool lost = s.code == VIR_ERR_OPERATION_FAILED || s.code == VIR_ERR_OPERATION_INVALID ||
                        s.code == VIR_ERR_STORAGE_POOL_BUILT;
      if (!lost || ++lost_creates > 3) ThrowStatus(uri, "create storage pool " + pool + " at " + dir, s);
      race = s;
      continue;
    }
    if (!s.ok()) ThrowStatus(uri, "look up storage pool " + pool, s);
    bool active = false;
    s = calls.IsActive(&active);
    if (s.code == VIR_ERR_NO_STORAGE_POOL) {  // a transient pool whose start just failed
      race = s;
      continue;
    }
    if (!s.ok()) ThrowStatus(uri, "query storage pool " + pool, s);
    if (active) return;
    s = calls.Start();
    if (s.ok()) return;
    // "is already active" or "is starting up" (both OPERATION_INVALID): another caller
    // started it; look again until it is active.
    if (s.code != VIR_ERR_OPERATION_INVALID && s.code != VIR_ERR_NO_STORAGE_POOL)
      ThrowStatus(uri, "start storage pool " + pool, s);
    race = s;
  }
  race.message = "another client kept it from becoming active for 10 s (" + race.message + ")";
  ThrowStatus(uri, "start storage pool " + pool, race);
}

void PublishShared(SharedVolumeCalls& calls, const std::string& uri, const std::string& name,
                   const std::string& temp) {
  // Why a temporary volume and a copy: a volume is visible under its name from the moment
  // it is created, and dir pools cannot rename. Uploading in place let a reader take a
  // half-written kernel and let a second uploader delete the first one's volume. The copy
  // is done by libvirtd alone (a killed storbed cannot cut it short), is refused when
  // another uploader's copy came first, and while it runs libvirt marks the volume as
  // building, which State() reports, so readers wait for it.
  struct DropTemp {
    SharedVolumeCalls& calls;
    const std::string& temp;
    bool uploaded = false;
    ~DropTemp() {
      if (uploaded) calls.Delete(temp);
    }
  } drop{calls, temp};
  constexpr int kRounds = 2400;  // x 50 ms; copying a kernel takes milliseconds
  for (int round = 0; round < kRounds; ++round) {
    switch (calls.State(name)) {
      case VolumeState::Complete:
        return;
      case VolumeState::Building:
        calls.Pause();
        continue;
      case VolumeState::Incomplete: {
        // Not one of ours (every copy has the file's size): replace it. Deleting a volume
        // libvirt is still building is refused with OPERATION_INVALID: wait for it then.
        const VirStatus s = calls.Delete(name);
        if (s.code == VIR_ERR_OPERATION_INVALID) {
          calls.Pause();
        } else if (!s.ok() && s.code != VIR_ERR_NO_STORAGE_VOL) {
          ThrowStatus(uri, "delete volume " + name + " (another capacity than the file's)", s);
        }
        continue;
      }
      case VolumeState::Missing:
        break;
    }
    if (!drop.uploaded) {
      calls.UploadTemp(temp);
      drop.uploaded = true;
    }
    const VirStatus s = calls.CopyFrom(name, temp);
    if (s.ok()) return;
    // libvirt 9.0 refuses a taken name here with INTERNAL_ERROR ("already in use"), not
    // STORAGE_VOL_EXIST: whatever the code, a volume there now is another uploader's,
    // and the next round waits for it. Only with nothing there is the failure ours.
    if (s.code != VIR_ERR_STORAGE_VOL_EXIST && calls.State(name) == VolumeState::Missing)
      ThrowStatus(uri, "copy " + temp + " to " + name, s);
  }
  ThrowStatus(uri, "wait for volume " + name,
        {VIR_ERR_OPERATION_TIMEOUT, "another uploader has not completed it within 2 minutes"});
}

}  // namespace storbed

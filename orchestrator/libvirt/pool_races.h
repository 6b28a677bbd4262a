// What the storage pool does when other clients (threads, connections, storbed processes)
// ensure the same pool or publish the same shared volume at the same moment: the logic,
// over interfaces, so every race is unit-tested with a fake; StoragePool supplies the
// libvirt calls.
#pragma once

#include <string>

namespace storbed {

// One libvirt call's outcome: code 0, or libvirt's error code (virErrorNumber) and message.
struct VirStatus {
  int code = 0;
  std::string message;
  bool ok() const { return code == 0; }
};

// Throws LibvirtError(uri, operation, s.message, s.code).
[[noreturn]] void ThrowStatus(const std::string& uri, const std::string& operation,
                              const VirStatus& s);

// The calls EnsurePoolActive makes, so its handling of a concurrent caller is unit-tested
// with a fake.
class PoolSetupCalls {
 public:
  virtual ~PoolSetupCalls() = default;
  virtual VirStatus Lookup() = 0;           // by name
  virtual VirStatus CreateTransient() = 0;  // with build
  virtual VirStatus IsActive(bool* active) = 0;
  virtual VirStatus Start() = 0;  // with build
  virtual void Pause() = 0;       // a moment for the other caller
};

// Makes sure the pool exists and is active. A create refused because the pool exists
// (another caller was first) and a start refused because it is active or starting up are
// races: it looks again until the pool is active. Throws LibvirtError naming `uri` for
// any other failure, or when the pool has not become active after about 10 s.
void EnsurePoolActive(PoolSetupCalls& calls, const std::string& uri, const std::string& pool,
                      const std::string& dir);

// What a shared volume of the expected size looks like right now.
enum class VolumeState {
  Missing,
  Building,    // libvirt is still copying it in (virStorageVolCreateXMLFrom)
  Complete,    // the file's size as capacity, not being built
  Incomplete,  // another capacity: not a copy of this file
};

// The calls PublishShared makes, so its handling of racing uploaders is unit-tested with
// a fake.
class SharedVolumeCalls {
 public:
  virtual ~SharedVolumeCalls() = default;
  virtual VolumeState State(const std::string& name) = 0;  // throws LibvirtError
  // Creates volume `temp` and uploads the file into it; throws when that fails.
  virtual void UploadTemp(const std::string& temp) = 0;
  // Creates volume `name` as a copy of `temp` (virStorageVolCreateXMLFrom).
  virtual VirStatus CopyFrom(const std::string& name, const std::string& temp) = 0;
  virtual VirStatus Delete(const std::string& name) = 0;
  virtual void Pause() = 0;  // a moment for the other uploader
};

// Makes volume `name` complete: reuses it when it is, waits while another uploader's
// copy is being built, else uploads the file as `temp` and copies that to `name`. A copy
// refused while `name` exists (another uploader was first) means using theirs. `temp`
// is deleted on every path. Throws LibvirtError naming `uri`, also when another
// uploader's volume has not become complete after about 2 minutes.
void PublishShared(SharedVolumeCalls& calls, const std::string& uri, const std::string& name,
                   const std::string& temp);

}  // namespace storbed

// The libvirt backend: a MachineSpec becomes domain XML and a transient domain
// (virDomainCreateXML with AUTODESTROY) on any libvirt URI, local or remote. The kernel,
// initrd and backing reach the host as volumes of a "storbed" storage pool (uploaded
// through libvirt streams, never scp); the agent talks over the domain's virtio-serial
// channel opened with virDomainOpenChannel; QMP goes through virDomainQemuMonitorCommand;
// block counters come from virConnectGetAllDomainStats.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "backend/backend.h"

namespace storbed {

struct LibvirtOptions {
  std::string uri = "qemu:///system";
  // Part of every domain name: "storbed-<session>-<spec.name>". Lets `storbed cleanup`
  // tell runs apart; the runner passes its session id (time and pid).
  std::string session = "s";
  // Directory of the "storbed" dir pool on that host (created when missing).
  std::string pool_dir = "/var/lib/storbed/pool";
  // Backings are used in place when the URI is on this host (no copy of a large file, and
  // the host device sampler sees the real one). True uploads them like for a remote host:
  // for tests of the remote path.
  bool upload_local_backings = false;
};

// Every storbed domain's name starts with this.
inline constexpr const char* kDomainPrefix = "storbed-";

// Throws MachineSpecError on "image" when `spec` is a foreign guest and `uri` is not on this
// host: the image and its overlay are local files a remote libvirtd could not open.
void CheckForeignImageHost(const MachineSpec& spec, const std::string& uri);

class LibvirtBackend : public Backend {
 public:
  // Connects at once: a daemon that is down or refuses throws one LibvirtError naming the URI.
  explicit LibvirtBackend(LibvirtOptions options);
  ~LibvirtBackend() override;
  std::string Name() const override { return "libvirt"; }
  const std::string& Uri() const;
  // spec.run_dir is a local directory: console.log (copied from the host) and
  // domain.xml go there.
  std::unique_ptr<Machine> Start(const MachineSpec& spec,
                                 std::chrono::seconds boot_timeout) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace storbed

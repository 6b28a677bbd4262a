// A second libvirt daemon on this machine (scripts/second-libvirtd.sh), so tests can use
// two libvirt hosts: private mount namespace, its own /etc/libvirt copy, listening on
// qemu+tcp://127.0.0.1:PORT/system. Stopped, with its domains, and its files removed on
// destruction.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace storbed::testing {

class SecondLibvirtd {
 public:
  // Starts one in a fresh /var/tmp/storbed-second-XXXXXX. Returns nullptr with the reason
  // in *why when this machine cannot (not root, no libvirtd, the script failed).
  static std::unique_ptr<SecondLibvirtd> Start(std::string* why);
  ~SecondLibvirtd();
  SecondLibvirtd(const SecondLibvirtd&) = delete;
  SecondLibvirtd& operator=(const SecondLibvirtd&) = delete;

  const std::string& uri() const { return uri_; }
  // A directory for its storage pool, outside the paths its namespace overlays.
  std::string pool_dir() const { return dir_ + "/pool"; }
  const std::string& dir() const { return dir_; }
  int pid() const { return pid_; }

 private:
  SecondLibvirtd(std::string dir, std::string uri, int pid)
      : dir_(std::move(dir)), uri_(std::move(uri)), pid_(pid) {}
  std::string dir_, uri_;
  int pid_;
};

// A TCP port on 127.0.0.1 that nothing listens on at the moment of the call.
int UnusedTcpPort();

// Names of the domains (running or not) on `uri` whose name starts with "storbed-";
// {"<virsh failed: ...>"} when virsh cannot list them.
std::vector<std::string> StorbedDomains(const std::string& uri);

}  // namespace storbed::testing

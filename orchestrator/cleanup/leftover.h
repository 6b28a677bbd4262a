// What `storbed cleanup` finds and removes: one Leftover per domain, volume, stray QEMU,
// loop device, vfio-pci binding, tunables journal, work dir or socket, each found by a
// LeftoverScanner. The command runs the scanners in order (cleanup_run.h), so a scanner that cannot
// look (libvirtd down) costs one line and the others still run.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace storbed {

enum class LeftoverKind {
  Domain,
  Volume,
  QemuProcess,
  LoopDevice,
  PciBinding,
  TunablesJournal,
  WorkDir,
  Socket
};

struct Leftover {
  LeftoverKind kind = LeftoverKind::WorkDir;
  std::string id;      // what Remove acts on: domain or volume name, pid, device, path
                       // (PciBinding: the state file; TunablesJournal: its dir)
  std::string label;   // what a line names: "domain storbed-s-nvme on qemu:///system"
  std::string reason;  // why it is stale: "owner pid 1234 gone"
  // Found, but its owner cannot be checked from here (another host, no owner record):
  // removed only with --force, otherwise printed as left alone.
  bool needs_force = false;
  uint64_t process_start = 0;  // QemuProcess: start ticks, so a reused pid is never killed
};

// Thrown by Find when what a scanner looks at is not there at all (libvirtd not running):
// nothing of it can be left over, so cleanup notes it and goes on (exit 0).
class ScannerUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LeftoverScanner {
 public:
  virtual ~LeftoverScanner() = default;
  // What it looks at, for failure lines: "libvirt at qemu:///system", "work dirs in /var/tmp".
  virtual std::string Scope() const = 0;
  // Everything stale it finds, in the order to remove. Throws std::exception with a
  // sentence when it cannot look at all.
  virtual std::vector<Leftover> Find() = 0;
  // Removes one item Find returned. Throws std::exception with a sentence on failure.
  virtual void Remove(const Leftover& item) = 0;
};

}  // namespace storbed

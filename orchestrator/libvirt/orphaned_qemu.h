// A domain's QEMU whose libvirtd is gone: libvirt leaves its QEMU running when the daemon
// dies, and no one else will stop it, so storbed does, for the domains it started.
#pragma once

#include <chrono>
#include <string>

namespace storbed {

// Stops `pid` if it is still the QEMU of `domain_name` (its command line says
// guest=<domain_name>, so a reused pid is never hit): SIGTERM (and SIGCONT, should it be
// stopped), then SIGKILL after `grace`. True when no such process is left.
bool StopOrphanedDomainQemu(int pid, const std::string& domain_name,
                            std::chrono::milliseconds grace,
                            const std::string& proc_root = "/proc");

}  // namespace storbed

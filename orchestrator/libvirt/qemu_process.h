// The QEMU process libvirt started for a domain, found in /proc when the daemon runs on
// this host (libvirt passes "-name guest=<domain>,debug-threads=on").
#pragma once

#include <string>
#include <vector>

namespace storbed {

// The pid whose command line has the argument "guest=<domain_name>[,...]"; -1 when none.
int FindDomainQemuPid(const std::string& proc_root, const std::string& domain_name);

// <proc_root>/<pid>/cmdline split on NULs; empty when it cannot be read.
std::vector<std::string> ReadCmdline(const std::string& proc_root, int pid);

}  // namespace storbed

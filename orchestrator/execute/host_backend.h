// The backend that boots guests on one host of a run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "plan/run_hosts.h"

namespace storbed {

// QemuBackend for a "qemu" host; a LibvirtBackend connected to host.uri, naming its
// domains after `session`, for a "libvirt" host. Throws LibvirtError when the daemon is
// down or refuses.
std::unique_ptr<Backend> MakeHostBackend(const RunHost& host, const std::string& session);

// Call once before hosts run in parallel threads: libvirt's global state is set up here,
// not raced for by the threads' first connections.
void PrepareBackendsForThreads(const std::vector<RunHost>& hosts);

}  // namespace storbed

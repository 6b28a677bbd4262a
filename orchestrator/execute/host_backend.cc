#include "execute/host_backend.h"

#include <libvirt/libvirt.h>

#include "backend/backend_qemu.h"
#include "libvirt/backend_libvirt.h"
#include "libvirt/virt_handles.h"

namespace storbed {

std::unique_ptr<Backend> MakeHostBackend(const RunHost& host, const std::string& session) {
  if (host.backend == HostBackend::Qemu) return std::make_unique<QemuBackend>();
  LibvirtOptions options;
  options.uri = host.uri;
  options.session = session;
  if (!host.pool_dir.empty()) options.pool_dir = host.pool_dir;
  return std::make_unique<LibvirtBackend>(options);
}

void PrepareBackendsForThreads(const std::vector<RunHost>& hosts) {
  for (const auto& h : hosts) {
    if (h.backend != HostBackend::Libvirt) continue;
    SilenceLibvirtErrors();
    if (virInitialize() != 0) ThrowLastLibvirtError(h.uri, "initialize libvirt");
    return;
  }
}

}  // namespace storbed

// The backend that boots guests on one host of a run.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "run/run_hosts.h"

namespace storbed {

// QemuBackend for a "qemu" host; a LibvirtBackend connected to host.uri, naming its
// domains after `session`, for a "libvirt" host. Throws LibvirtError when the daemon is
// down or refuses.
std::unique_ptr<Backend> MakeHostBackend(const RunHost& host, const std::string& session);

// Boots one machine at a time through `inner` (the lock is shared by every backend of one
// host), so two slots of a host never upload the same kernel volume or define its pool at
// once; the guests still run their jobs side by side.
class OneBootAtATimeBackend : public Backend {
 public:
  OneBootAtATimeBackend(std::unique_ptr<Backend> inner, std::mutex& boot_lock)
      : inner_(std::move(inner)), boot_lock_(boot_lock) {}
  std::string Name() const override { return inner_->Name(); }
  std::unique_ptr<Machine> Start(const MachineSpec& spec,
                                 std::chrono::seconds boot_timeout) override {
    std::lock_guard lock(boot_lock_);
    return inner_->Start(spec, boot_timeout);
  }

 private:
  std::unique_ptr<Backend> inner_;
  std::mutex& boot_lock_;
};

// Call once before hosts run in parallel threads: libvirt's global state is set up here,
// not raced for by the threads' first connections.
void PrepareBackendsForThreads(const std::vector<RunHost>& hosts);

}  // namespace storbed

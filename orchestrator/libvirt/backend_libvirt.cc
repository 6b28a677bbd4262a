#include "libvirt/backend_libvirt.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <mutex>

#include "backend/interrupt.h"
#include "backend/qemu_argv.h"
#include "host_identity.h"
#include "libvirt/domain_xml.h"
#include "libvirt/libvirt_machine.h"
#include "libvirt/storage_pool.h"
#include "libvirt/virt_handles.h"
#include "libvirt_uri.h"

namespace storbed {
namespace {

std::string VersionText(unsigned long v) {
  return std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." +
         std::to_string(v % 1000);
}

}  // namespace

void CheckForeignImageHost(const MachineSpec& spec, const std::string& uri) {
  // The overlay (and the image under it, and the cloud-init disks) are files storbed made
  // in its work directory on this host; a remote libvirtd could not open them, and copying
  // a whole OS image per machine is what running storbed on that host avoids.
  if (spec.foreign && !UriIsOnThisHost(uri))
    throw MachineSpecError("", "image",
                           "a foreign image boots only under a libvirt on this host (the "
                           "image and its overlay are local files), not at " + uri +
                               "; run storbed on that host, or use storbed's own guest");
}

struct LibvirtBackend::State {
  LibvirtOptions options;
  std::shared_ptr<LibvirtConnection> conn;
  std::string version;
  std::mutex pool_mu;
  std::shared_ptr<StoragePool> pool;  // ensured at the first Start

  std::shared_ptr<StoragePool> Pool() {
    std::lock_guard<std::mutex> lock(pool_mu);
    if (!pool) pool = std::make_shared<StoragePool>(StoragePool::Ensure(*conn, options.pool_dir));
    return pool;
  }
};

LibvirtBackend::LibvirtBackend(LibvirtOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->conn = std::make_shared<LibvirtConnection>(LibvirtConnection::Open(state_->options.uri));
  const std::string& uri = state_->options.uri;
  unsigned long hv = 0, lib = 0;
  if (virConnectGetVersion(state_->conn->get(), &hv) < 0) state_->conn->Fail("virConnectGetVersion");
  if (virConnectGetLibVersion(state_->conn->get(), &lib) < 0) state_->conn->Fail("virConnectGetLibVersion");
  state_->version = "QEMU emulator version " + VersionText(hv) + " (via libvirt " + VersionText(lib) +
                    " at " + uri + ")";
}

LibvirtBackend::~LibvirtBackend() = default;

const std::string& LibvirtBackend::Uri() const { return state_->options.uri; }

std::unique_ptr<Machine> LibvirtBackend::Start(const MachineSpec& spec,
                                               std::chrono::seconds boot_timeout) {
  const auto deadline = Clock::now() + boot_timeout;
  const std::string name = DomainName(state_->options.session, spec.name);
  CheckForeignImageHost(spec, state_->options.uri);
  {
    // Refuse what libvirt cannot express before anything is uploaded.
    DomainPlacement dry;
    dry.domain_name = name;
    dry.kernel = spec.kernel.empty() ? "" : "/k";
    dry.console_path = "/c";
    dry.disk_paths.assign(spec.disks.size(), "/d");
    BuildDomainXml(spec, dry);
  }
  std::filesystem::create_directories(spec.run_dir);
  LibvirtMachineConfig config{
      .conn = state_->conn,
      .pool = state_->Pool(),
      .domain_name = name,
      .owner = DomainOwner{.session = state_->options.session,
                           .pid = static_cast<int>(::getpid()),
                           .host = ThisHostName(),
                           .started = UtcTimestamp()},
      .on_this_host = UriIsOnThisHost(state_->options.uri),
      .upload_backings = state_->options.upload_local_backings,
      .version = state_->version};
  auto machine = std::make_unique<LibvirtMachine>(spec, std::move(config));
  try {
    machine->Launch(deadline);
  } catch (const MachineDiedError&) {
    throw;
  } catch (const InterruptedError&) {
    throw;  // ~LibvirtMachine destroys the domain on the way out
  } catch (const std::exception&) {
    machine->ThrowIfDiedShortly();
    throw;
  }
  return machine;
}

}  // namespace storbed

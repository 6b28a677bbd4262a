#include "cleanup/libvirt_scanner.h"

#include <libvirt/virterror.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cleanup/domain_owner.h"
#include "libvirt/backend_libvirt.h"
#include "libvirt/domain_xml.h"
#include "libvirt/storage_pool.h"
#include "libvirt/virt_handles.h"
#include "libvirt_uri.h"

namespace storbed {
namespace {

class LibvirtScanner : public LeftoverScanner {
 public:
  explicit LibvirtScanner(LibvirtScanOptions o) : o_(std::move(o)) {}
  std::string Scope() const override { return "libvirt at " + o_.uri; }

  // LibvirtError's text starts with "libvirt at <uri>", which the scope and the item's
  // label already say: pass on the operation and libvirt's message only.
  std::vector<Leftover> Find() override {
    try {
      return FindOrThrow();
    } catch (const LibvirtError& e) {
      throw std::runtime_error(e.operation() + ": " + e.message());
    }
  }

  void Remove(const Leftover& item) override {
    try {
      RemoveOrThrow(item);
    } catch (const LibvirtError& e) {
      throw std::runtime_error(e.operation() + ": " + e.message());
    }
  }

 private:
  std::vector<Leftover> FindOrThrow() {
    try {
      conn_.emplace(LibvirtConnection::Open(o_.uri));
    } catch (const LibvirtError& e) {
      // No daemon listening: it runs no domains and holds no volumes to clean up.
      const std::string text = e.message();
      if (text.find("No such file or directory") != std::string::npos ||
          text.find("Connection refused") != std::string::npos)
        throw ScannerUnavailable("libvirtd is not running (" + text +
                                 "); its domains and volumes were not checked");
      throw;
    }
    const ProcessTable processes = ProcessTable::Read(o_.proc_root, /*with_fds=*/false);
    std::vector<Leftover> found;
    std::map<std::string, OwnerVerdict> session_verdicts;
    std::vector<std::string> kept_xml;
    for (DomainHandle& dom : ListDomains()) {
      const std::string name = virDomainGetName(dom.get());
      const std::string xml = TakeLibvirtString(virDomainGetXMLDesc(dom.get(), 0));
      if (name.rfind(kDomainPrefix, 0) != 0) {
        kept_xml.push_back(xml);
        continue;
      }
      const auto owner = OwnerOf(xml);
      const OwnerVerdict verdict = JudgeRunOwner(owner, processes, o_.this_host);
      if (owner) session_verdicts[owner->session] = verdict;
      if (verdict.state == OwnerState::Live) {
        kept_xml.push_back(xml);
        continue;
      }
      const bool needs_force = verdict.state != OwnerState::Gone;
      if (needs_force && !o_.force) kept_xml.push_back(xml);
      found.push_back(Leftover{.kind = LeftoverKind::Domain,
                               .id = name,
                               .label = "domain " + name + " on " + o_.uri,
                               .reason = verdict.reason,
                               .needs_force = needs_force});
    }
    const VolumeContext volumes{.session_verdicts = session_verdicts,
                                .kept_domain_xml = kept_xml,
                                .processes = processes,
                                .this_host = o_.this_host,
                                .uri_on_this_host = UriIsOnThisHost(o_.uri),
                                .prune_shared = o_.shared_volumes,
                                .storbed_run_under_way = AStorbedRunIsUnderWay(processes)};
    for (auto& v : FindVolumes(volumes)) found.push_back(std::move(v));
    return found;
  }

  void RemoveOrThrow(const Leftover& item) {
    if (item.kind == LeftoverKind::Domain) return RemoveDomain(item.id);
    PoolHandle pool(virStoragePoolLookupByName(conn_->get(), kPoolName));
    if (!pool) conn_->Fail(std::string("find pool ") + kPoolName);
    VolumeHandle vol(virStorageVolLookupByName(pool.get(), item.id.c_str()));
    if (!vol) conn_->Fail("find volume " + item.id);
    if (virStorageVolDelete(vol.get(), 0) != 0) conn_->Fail("delete volume " + item.id);
  }

  std::vector<DomainHandle> ListDomains() {
    virDomainPtr* raw = nullptr;
    const int n = virConnectListAllDomains(conn_->get(), &raw, 0);
    if (n < 0) conn_->Fail("list domains");
    std::vector<DomainHandle> domains;
    for (int i = 0; i < n; ++i) domains.emplace_back(raw[i]);
    std::free(raw);
    return domains;
  }

  std::vector<Leftover> FindVolumes(const VolumeContext& context) {
    PoolHandle pool(virStoragePoolLookupByName(conn_->get(), kPoolName));
    if (!pool || virStoragePoolIsActive(pool.get()) != 1) {
      virResetLastError();  // no storbed pool here (yet): no volumes to leave behind
      return {};
    }
    if (virStoragePoolRefresh(pool.get(), 0) != 0)
      conn_->Fail(std::string("refresh pool ") + kPoolName);
    virStorageVolPtr* raw = nullptr;
    const int n = virStoragePoolListAllVolumes(pool.get(), &raw, 0);
    if (n < 0) conn_->Fail(std::string("list volumes of pool ") + kPoolName);
    std::vector<VolumeHandle> volumes;
    for (int i = 0; i < n; ++i) volumes.emplace_back(raw[i]);
    std::free(raw);
    std::vector<Leftover> found;
    for (const auto& vol : volumes) {
      const std::string name = virStorageVolGetName(vol.get());
      const std::string path = TakeLibvirtString(virStorageVolGetPath(vol.get()));
      const VolumeVerdict v = JudgeVolume(name, path, context);
      if (!v.stale) continue;
      found.push_back(Leftover{.kind = LeftoverKind::Volume,
                               .id = name,
                               .label = "volume " + name + " of pool storbed on " + o_.uri,
                               .reason = v.reason,
                               .needs_force = v.needs_force});
    }
    return found;
  }

  void RemoveDomain(const std::string& name) {
    DomainHandle dom(virDomainLookupByName(conn_->get(), name.c_str()));
    if (!dom) {
      const virError* err = virGetLastError();
      if (err && err->code == VIR_ERR_NO_DOMAIN) return virResetLastError();  // gone already
      conn_->Fail("find domain " + name);
    }
    // Ask before destroying: a transient domain is gone once destroyed.
    const int persistent = virDomainIsPersistent(dom.get());
    if (virDomainIsActive(dom.get()) == 1 && virDomainDestroy(dom.get()) != 0)
      conn_->Fail("destroy domain " + name);
    if (persistent == 1 &&
        virDomainUndefineFlags(dom.get(), VIR_DOMAIN_UNDEFINE_MANAGED_SAVE |
                                              VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA |
                                              VIR_DOMAIN_UNDEFINE_NVRAM) != 0)
      conn_->Fail("undefine domain " + name);
  }

  LibvirtScanOptions o_;
  std::optional<LibvirtConnection> conn_;
};

}  // namespace

std::unique_ptr<LeftoverScanner> MakeLibvirtScanner(const LibvirtScanOptions& options) {
  return std::make_unique<LibvirtScanner>(options);
}

}  // namespace storbed

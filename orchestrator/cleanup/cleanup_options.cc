#include "cleanup/cleanup_options.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cleanup/host_scanners.h"
#include "cleanup/libvirt_scanner.h"
#include "cleanup/pci_scanner.h"
#include "cleanup/tunables_scanner.h"
#include "error.h"
#include "input_file.h"
#include "owner_marker.h"
#include "strict_json.h"

namespace storbed {

std::vector<std::string> ReadInventoryUris(const std::string& path) {
  // ReadInputFile: a FIFO here once made cleanup wait for a writer forever.
  const std::string text = ReadInputFile(path, "inventory");  // bad input (InputFileError)
  const auto j = ParseJsonOrDiscarded(text);
  if (j.is_discarded()) throw Error(ErrorKind::BadInput, "inventory " + path + ": not valid JSON");
  if (!j.is_object() || !j.contains("hosts") || !j["hosts"].is_array())
    throw Error(ErrorKind::BadInput, "inventory " + path + ": needs a \"hosts\" list");
  std::vector<std::string> uris;
  for (size_t i = 0; i < j["hosts"].size(); ++i) {
    const auto& host = j["hosts"][i];
    if (!host.is_object() || !host.contains("uri") || !host["uri"].is_string())
      throw Error(ErrorKind::BadInput, "inventory " + path + ": hosts[" + std::to_string(i) +
                                           "].uri is missing or not a string");
    uris.push_back(host["uri"].get<std::string>());
  }
  return uris;
}

std::vector<std::unique_ptr<LeftoverScanner>> MakeCleanupScanners(const CleanupOptions& options,
                                                                  HostActions& actions) {
  const std::string this_host = ThisHostName();
  std::vector<std::unique_ptr<LeftoverScanner>> scanners;
  if (!options.no_libvirt) {
    std::vector<std::string> uris = options.uris;
    if (uris.empty() && options.inventory.empty()) uris.push_back("qemu:///system");
    if (!options.inventory.empty())
      for (auto& uri : ReadInventoryUris(options.inventory)) uris.push_back(std::move(uri));
    std::vector<std::string> seen;
    for (const auto& uri : uris) {
      if (std::find(seen.begin(), seen.end(), uri) != seen.end()) continue;
      seen.push_back(uri);
      scanners.push_back(MakeLibvirtScanner(LibvirtScanOptions{.uri = uri,
                                                               .proc_root = options.proc_root,
                                                               .this_host = this_host,
                                                               .force = options.force,
                                                               .shared_volumes =
                                                                   options.shared_volumes}));
    }
  }
  HostScanContext host{.proc_root = options.proc_root,
                       .sys_root = options.sys_root,
                       .work_roots = options.work_dirs,
                       .results_dirs = options.results_dirs,
                       .this_host = this_host,
                       .actions = &actions};
  if (host.work_roots.empty()) host.work_roots.push_back("/var/tmp");
  scanners.push_back(MakeStrayQemuScanner(host));
  scanners.push_back(MakeLoopScanner(host));
  static RealSysfsWriter sysfs;  // stateless: one for every call
  scanners.push_back(MakePciBindingScanner(host, sysfs));
  scanners.push_back(MakeTunablesScanner(host));
  scanners.push_back(MakeWorkDirScanner(host));
  scanners.push_back(MakeSocketScanner(host));
  return scanners;
}

}  // namespace storbed

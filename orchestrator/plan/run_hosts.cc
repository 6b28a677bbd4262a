#include "plan/run_hosts.h"

#include <optional>

#include "libvirt_uri.h"
#include "plan/inventory.h"

namespace storbed {

std::string ToString(HostBackend b) {
  switch (b) {
    case HostBackend::Qemu: return "qemu";
    case HostBackend::Libvirt: return "libvirt";
    case HostBackend::None: return "none";
  }
  return "?";
}

HostBackend ParseHostBackend(const std::string& name) {
  for (const HostBackend b : {HostBackend::Qemu, HostBackend::Libvirt})
    if (ToString(b) == name) return b;
  throw ScenarioError("run: --backend '" + name + "' is not qemu or libvirt");
}

std::vector<RunHost> HostsFor(const RunOptions& options) {
  const bool wants_libvirt = !options.connect_uri.empty() || !options.inventory_path.empty();
  const std::optional<HostBackend> asked =
      options.backend.empty() ? std::nullopt : std::optional(ParseHostBackend(options.backend));
  if (asked == HostBackend::Qemu && wants_libvirt)
    throw ScenarioError(std::string("run: --backend qemu runs guests here; --") +
                        (options.inventory_path.empty() ? "connect" : "inventory") +
                        " needs the libvirt backend");
  if (!options.inventory_path.empty()) {
    if (!options.connect_uri.empty())
      throw ScenarioError("run: --connect and --inventory both name hosts; give one");
    std::vector<RunHost> hosts;
    for (const auto& h : SelectHosts(LoadInventory(options.inventory_path), options.host_label)
                             .hosts)
      hosts.push_back({h.name, HostBackend::Libvirt, h.uri, h.max_guests, h.labels, h.pool_dir});
    return hosts;
  }
  if (asked == HostBackend::Libvirt || wants_libvirt) {
    const std::string uri =
        options.connect_uri.empty() ? kDefaultLibvirtUri : options.connect_uri;
    return {{HostNameForUri(uri), HostBackend::Libvirt, uri, 1, {}, ""}};
  }
  return {{kLocalHost, HostBackend::Qemu, "", 1, {}, ""}};
}

std::string HostNameForUri(const std::string& uri) {
  if (UriIsOnThisHost(uri)) return kLocalHost;
  const size_t scheme = uri.find("://");
  if (scheme == std::string::npos) return uri;
  std::string authority = uri.substr(scheme + 3);
  authority = authority.substr(0, authority.find_first_of("/?"));
  if (authority.find('@') != std::string::npos) authority = authority.substr(authority.find('@') + 1);
  // An IPv6 literal keeps its brackets; a port goes.
  const size_t port = authority.rfind(':');
  if (port != std::string::npos && authority.find(']', port) == std::string::npos)
    authority = authority.substr(0, port);
  return authority.empty() ? kLocalHost : authority;
}

std::string SessionId(std::time_t now, int pid) {
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &utc);
  return std::string(stamp) + "-" + std::to_string(pid);
}

nlohmann::json DescribeHosts(const std::vector<RunHost>& hosts,
                             const std::vector<std::string>& statuses) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < hosts.size(); ++i)
    out.push_back({{"name", hosts[i].name},
                   {"backend", ToString(hosts[i].backend)},
                   {"uri", hosts[i].uri},
                   {"labels", hosts[i].labels},
                   {"max_guests", hosts[i].max_guests},
                   {"status", i < statuses.size() ? statuses[i] : "pending"}});
  return out;
}

}  // namespace storbed

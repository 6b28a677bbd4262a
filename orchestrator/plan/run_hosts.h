// Where a run's guests go: the inventory's hosts (`--inventory`, filtered by
// `--host-label`), or one host for `--backend qemu|libvirt [--connect URI]`.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/run_options.h"

namespace storbed {

// The name of this machine as a host: the QEMU backend, bare metal, a local daemon.
inline constexpr const char* kLocalHost = "local";
inline constexpr const char* kDefaultLibvirtUri = "qemu:///system";

// Who starts a host's guests: QEMU as storbed's child, or a libvirt daemon; bare metal
// has none. The names are the --backend values and what records and manifests say.
enum class HostBackend { Qemu, Libvirt, None };
std::string ToString(HostBackend b);
// "qemu" or "libvirt" (the --backend values); throws ScenarioError naming the option.
HostBackend ParseHostBackend(const std::string& name);

struct RunHost {
  std::string name;                         // inventory name, or kLocalHost
  HostBackend backend = HostBackend::Qemu;
  std::string uri;               // libvirt URI; "" for the QEMU backend
  uint32_t max_guests = 1;
  std::vector<std::string> labels;
  std::string pool_dir;          // "" = the libvirt backend's default
};

// The hosts `options` ask for. Throws ScenarioError for contradictory options
// (--backend qemu with --connect or --inventory) and InventoryError for a bad inventory.
std::vector<RunHost> HostsFor(const RunOptions& options);

// The host part of a libvirt URI ("lab1" for qemu+ssh://root@lab1/system), or kLocalHost
// when the URI names this machine.
std::string HostNameForUri(const std::string& uri);

// "<UTC yyyymmddThhmmss>-<pid>": part of every libvirt domain name of this run, so
// concurrent runs and `storbed cleanup` can tell them apart.
std::string SessionId(std::time_t now, int pid);

// The manifest's "hosts": name, backend, uri, labels, max_guests and `statuses` (one per
// host: "pending", "ok", "failed", "unused").
nlohmann::json DescribeHosts(const std::vector<RunHost>& hosts,
                             const std::vector<std::string>& statuses);

}  // namespace storbed

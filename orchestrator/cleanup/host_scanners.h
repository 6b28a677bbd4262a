// The scanners for what a killed run leaves on this host, run in this order: stray QEMU
// processes, loop devices over stale work dirs, the stale work dirs themselves, and
// sockets left in results directories. Each re-reads /proc and /sys when it looks, so it
// sees what the scanners before it removed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cleanup/host_actions.h"
#include "cleanup/leftover.h"

namespace storbed {

struct HostScanContext {
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::vector<std::string> work_roots;    // --work-dir: where storbed-work-* dirs are
  std::vector<std::string> results_dirs;  // --results: where machine sockets are
  std::string this_host;
  HostActions* actions = nullptr;  // not owned
  // libvirt's status XML of each running domain (<name>.xml, with storbed's owner in its
  // metadata): it outlives libvirtd, so a QEMU whose daemon died can still be judged.
  std::string libvirt_status_dir = "/run/libvirt/qemu";
};

// QEMU processes started by the QEMU backend ("-name storbed-..." and storbed's agent
// port) that use a stale work dir, or whose parent storbed is gone (reparented); and
// QEMU started by libvirt ("-name guest=storbed-...") whose run's owner, read from the
// domain's status XML, is gone (libvirtd killed mid-run leaves its QEMU running, and the
// domain scanner cannot see it). Without a status XML a libvirt QEMU is left alone.
std::unique_ptr<LeftoverScanner> MakeStrayQemuScanner(const HostScanContext& context);
// Loop devices whose backing file is inside a stale work dir.
std::unique_ptr<LeftoverScanner> MakeLoopScanner(const HostScanContext& context);
// Stale storbed-work-* dirs (stale_work_dirs.h); another host's are left alone without --force.
std::unique_ptr<LeftoverScanner> MakeWorkDirScanner(const HostScanContext& context);
// agent.sock / qmp.sock up to three levels under each results dir that no running
// process names on its command line (QEMU names its sockets there) and none has bound
// (/proc/net/unix): a live socket of another process is never removed.
std::unique_ptr<LeftoverScanner> MakeSocketScanner(const HostScanContext& context);

// The -name value of a QEMU backend process ("storbed-nvme"), or "" when `argv` is not
// one: it must name itself storbed-* and carry storbed's agent port.
std::string StorbedQemuName(const std::vector<std::string>& argv);
// The domain name of a QEMU libvirt started for storbed ("-name guest=storbed-...,..."),
// "" for any other process.
std::string LibvirtStorbedDomain(const std::vector<std::string>& argv);

}  // namespace storbed

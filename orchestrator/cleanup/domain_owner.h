// Whose a storbed libvirt domain or "storbed" pool volume is. Domains carry their owner
// in metadata (libvirt/domain_xml.h OwnerOf: session, pid, host, started); per-machine
// volumes are named "storbed-<session>-..." and the session itself is "<UTC
// time>-<pid>" (plan/run_hosts.h SessionId), so a volume names its owner even after its
// AUTODESTROY domain went with the killed storbed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cleanup/process_table.h"
#include "libvirt/domain_xml.h"

namespace storbed {

// Seconds since the epoch of "1712345678", "2024-04-05T12:34:56Z" (fraction and offset
// allowed) or a session's "20240405T123456"; nullopt otherwise.
std::optional<double> ParseStartedTime(const std::string& text);

enum class OwnerState { Live, Gone, Elsewhere, Unknown };

struct OwnerVerdict {
  OwnerState state = OwnerState::Unknown;
  std::string reason;  // "owner pid 1234 gone", "owner pid 7 on host b, ..."
};

// Gone: the pid does not run here, or the process with that pid started after the run
// did (the pid was reused). Live when it runs and its start time is unknown or earlier.
// Elsewhere when the owner's host is not `this_host`; Unknown without an owner or pid.
OwnerVerdict JudgeRunOwner(const std::optional<DomainOwner>& owner, const ProcessTable& processes,
                           const std::string& this_host);

// The session a "storbed-<YYYYMMDDTHHMMSS>-<pid>-..." name starts with, as an owner
// (host left empty: a name does not say); nullopt for other names.
std::optional<DomainOwner> SessionOfName(const std::string& name);

struct VolumeVerdict {
  bool stale = false;
  bool needs_force = false;
  std::string reason;
};

struct VolumeContext {
  // Verdicts of the sessions of the storbed domains on the same URI.
  const std::map<std::string, OwnerVerdict>& session_verdicts;
  const std::vector<std::string>& kept_domain_xml;  // domains that stay
  const ProcessTable& processes;
  std::string this_host;
  bool uri_on_this_host = true;
  // --shared-volumes: the shared kernel and initrd volumes no staying domain uses are
  // removed too (the next run uploads what it needs again).
  bool prune_shared = false;
  // AStorbedRunIsUnderWay(processes), asked once per scan, not once per volume.
  bool storbed_run_under_way = false;
};

// True when a `storbed run` process is in `processes`: it may be about to boot with a
// shared volume no domain names yet.
bool AStorbedRunIsUnderWay(const ProcessTable& processes);

// A volume of the storbed pool. Not ours unless named "storbed-*" (shared kernel and
// initrd volumes are a cache and stay, unless prune_shared: then one no staying domain
// names is stale, needing --force while a storbed run is under way here or for a remote
// URI, whose runs may be anywhere); kept while a staying domain names its path; else
// judged by its session: the session's domain's verdict when one exists; otherwise by
// the session's pid on this host (a remote URI's may be another host's run: --force).
VolumeVerdict JudgeVolume(const std::string& name, const std::string& path,
                          const VolumeContext& context);

}  // namespace storbed

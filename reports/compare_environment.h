// The comparability gate of `storbed compare`: the environment items of two manifests
// (manifest.json "environment", and each guest machine's kernel release and hashes,
// accelerator, agent, QEMU version and argv without paths) side by side, and which differences stop a verdict.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed {

struct EnvironmentDiff {
  std::string item, base, cand;
  // False for items that describe the moment a run started (load.*): shown, not gated.
  bool gating = true;
  bool allowed = false;  // named by --allow-diff, or explained by the --by factor
  std::string why_allowed;  // "--allow-diff", "the --by factor"
};

// A manifest's items, flat: "environment" as it is, and "machine.<label>.<what>" for each
// guest machine (kernel release and hashes, accelerator, agent, QEMU version, argv).
std::map<std::string, std::string> EnvironmentItems(const nlohmann::json& manifest);

// Every item whose value differs, in item order. A manifest without an environment
// (results from before it was recorded) gives one gating item "environment" saying so.
std::vector<EnvironmentDiff> DiffEnvironments(const nlohmann::json& base_manifest,
                                              const nlohmann::json& cand_manifest,
                                              const std::vector<std::string>& allowed);

// One directory split by --by: the machine items (guest kernel release, image and config
// hashes, accelerator, agent, QEMU version, argv without paths) of the machines each side ran on (labels of manifest
// "machines"), as sets. An item differs when the sides' sets differ; the factor allows
// what it changes by design (machine.kernel the guest kernel; a machine, disk or target
// field the argv), --allow-diff the rest. One environment: the host items cannot differ.
std::vector<EnvironmentDiff> DiffSidesOfOneRun(const nlohmann::json& manifest,
                                               const std::vector<std::string>& base_labels,
                                               const std::vector<std::string>& cand_labels,
                                               const std::string& by,
                                               const std::vector<std::string>& allowed);

// The QEMU argv without what differs between runs of one configuration: paths and
// sockets ("/var/tmp/storbed-work-x/backing.raw" -> "<path>") and the -name, which
// carries the machine's label.
std::string ArgvWithoutPaths(const nlohmann::json& argv);

// True when a difference stops the verdict (gating and not allowed).
bool Blocks(const EnvironmentDiff& d);

}  // namespace storbed

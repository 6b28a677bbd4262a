// `storbed run`: loads a scenario, prepares the backing and the guest image, runs every
// planned run (guests through the backend, bare metal through the local agent) and
// writes results as each run ends.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "run/run_record.h"
#include "run/scenario.h"

namespace storbed {

struct RunOptions {
  std::string scenario_path;
  std::string out_dir;
  std::string agent_path;         // the static storbed-agent binary
  std::string image_cache_dir;    // where built initramfs images are kept
  std::string work_dir = "/var/tmp";  // backing files live here (needs a real block device)
  std::string accel;              // "" = the scenario's (auto, kvm or tcg)
  std::string fio_path;           // a fio job file to import instead of scenario_path
  std::string fio_targets;        // with fio_path: "virtio-blk,nvme"; "" = all three
  // Where guests run (run_hosts.h, docs/hosts.md): "qemu" (default), "libvirt";
  // connect_uri or inventory_path imply libvirt.
  std::string backend;
  std::string connect_uri;        // "" = qemu:///system
  std::string inventory_path;     // several hosts, in parallel
  std::string host_label;         // with inventory_path: only hosts with this label
};

// The scenario the options name: scenario_path, or fio_path imported (fio_import.h).
// Throws ScenarioError.
Scenario LoadScenarioFor(const RunOptions& options);

struct RunOutcome {
  std::vector<RunRecord> records;
  std::vector<std::string> failures;  // "RUN_ID: reason", one per failed run
};

// Runs the scenario; progress goes to `log`. Throws ScenarioError for bad input,
// InterruptedError on Ctrl-C (after recording what finished), std::runtime_error when
// setup fails. Failed runs do not throw: they are in RunOutcome::failures.
RunOutcome RunScenario(const RunOptions& options, std::ostream& log);

}  // namespace storbed

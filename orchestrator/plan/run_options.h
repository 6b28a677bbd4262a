// What `storbed run` was asked for: the scenario (or fio file), where results and work
// files go, and where guests run. The CLI fills it; planning and execution read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passthrough/pci_safety.h"

namespace storbed {

struct RunOptions {
  std::string scenario_path;
  std::string out_dir;
  std::string agent_path;         // the static storbed-agent binary
  std::string image_cache_dir;    // where built initramfs images are kept
  std::string work_dir = "/var/tmp";  // backing files live here (needs a real block device)
  std::string accel;              // "" = the scenario's (auto, kvm or tcg)
  std::string fio_path;           // a fio job file to import instead of scenario_path
  std::string fio_args;           // or a fio command line as pasted (--fio-args)
  std::string fio_targets;        // with fio_path: "virtio-blk,nvme"; "" = all three
  // Where guests run (run_hosts.h, docs/hosts.md): "qemu" (default), "libvirt";
  // connect_uri or inventory_path imply libvirt.
  std::string backend;
  std::string connect_uri;        // "" = qemu:///system
  std::string inventory_path;     // several hosts, in parallel
  std::string host_label;         // with inventory_path: only hosts with this label
  bool quiet = false;             // no progress line (execute/progress.h)
  bool trace = false;             // --trace: every job traced that does not say (docs/tracing.md)
  // --until-conclusive (execute/round_gate.h, docs/compare.md): interleaved rounds with a
  // look after each, stopped once every primary test of the split by until_by is decided.
  bool until_conclusive = false;
  std::string until_by;
  std::string budget_text;     // --budget as typed: "40", "30m", "40,30m"
  uint64_t budget_rounds = 0;  // its rounds: the rounds planned; 0: the scenario's repeats
  double budget_s = 0;         // its time: stop before a round that would end after it
  uint64_t first_look = 5;
  double alpha = 0.01, noise = 0.02;  // --alpha, --noise (a fraction: 0.02 is +-2%)
  uint64_t max_runs = 10000;      // a larger matrix is refused (scenario.h kDefaultMaxRuns)
  // --allow-pci: the PCI devices disk.passthrough may hand to a guest (docs/passthrough.md).
  std::vector<std::string> allow_pci;
  PassthroughSources passthrough_sources;  // sysfs, mountinfo, swaps; tests use fakes
};

}  // namespace storbed

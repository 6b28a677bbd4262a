// A scenario file: the machine, the disk, the targets and the jobs of one suite.
// Parsing is driven by the field table (scenario_fields.h); every error names the
// file, the field and the reason.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/machine_spec.h"
#include "job.h"

namespace storbed {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MachineConfig {
  uint32_t vcpus = 2;
  uint64_t memory_bytes = 1ull << 30;
  std::string kernel = "host";
  std::string modules_dir;
  std::string accel = "auto";  // auto | kvm | tcg
  double boot_timeout_s = 180;
  uint32_t sample_period_ms = 100;  // host samplers
};

struct DiskConfig {
  uint64_t size_bytes = 64ull << 20;
  std::string backing;  // user-named file or device; empty = storbed creates one
  uint32_t num_queues = 1;
  uint32_t queue_size = 256;
  bool iothread = false;
  Aio aio = Aio::Threads;
  CacheMode cache = CacheMode::None;
  bool no_flush = false;
  bool request_merging = true;
};

enum class TargetKind { VirtioBlk, Nvme, BareMetal };
std::string ToString(TargetKind t);

struct Scenario {
  std::string path;
  std::string name;
  std::string description;
  MachineConfig machine;
  DiskConfig disk;
  std::vector<TargetKind> targets;
  std::vector<JobSpec> jobs;     // target is filled in per run
  nlohmann::json expanded;       // every field with its default applied, for the manifest
};

// Reads and validates a scenario file. Throws ScenarioError("FILE: FIELD: reason").
Scenario LoadScenario(const std::string& path);
// The same, from text; `path` only names the source in messages.
Scenario ParseScenario(const std::string& text, const std::string& path);

// "4k", "1m", "64MiB", "512" or a JSON number -> bytes. Throws std::invalid_argument.
uint64_t ParseSize(const nlohmann::json& value);

}  // namespace storbed

// A scenario file: the machine, the disk, the targets and the jobs of one suite.
// Parsing is driven by the field table (scenario_fields.h); every error names the
// file, the field and the reason.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/machine_spec.h"
#include "error.h"
#include "job.h"
#include "scenario/target_kind.h"

namespace storbed {

class ScenarioError : public Error {
 public:
  explicit ScenarioError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

struct MachineConfig {
  uint32_t vcpus = 2;
  uint64_t memory_bytes = 1ull << 30;
  std::string kernel = "host";
  std::string modules_dir;
  // A foreign guest (execute/foreign_image.h): the distribution image storbed boots
  // read-only through an overlay, and the external kernel's initrd and command line.
  std::string image;
  std::string initrd;
  std::string append;
  std::string agent_push = "auto";  // auto | qga | cloud-init (backend/machine_spec.h)
  std::string accel = "auto";  // auto | kvm | tcg
  double boot_timeout_s = 180;
  uint32_t sample_period_ms = 100;  // host samplers
  uint32_t virtqueue_sample_ms = 10;  // the virtqueue sampler's own, faster period
  BlockTunables tunables;  // defaults for every job of a guest on this machine
  bool operator==(const MachineConfig&) const = default;
};

struct DiskConfig {
  uint64_t size_bytes = 64ull << 20;
  std::string backing;  // user-named file or device; empty = storbed creates one
  bool allow_writes = false;  // write jobs may run on a user-named block device
  // A PCI address ("0000:03:00.0"): the guest gets that NVMe controller through vfio-pci,
  // bare metal its first namespace (docs/passthrough.md). "" = none.
  std::string passthrough;
  std::string format = "raw";    // raw | qcow2 (of the backing storbed creates)
  std::string driver = "file";   // file | null-co
  uint64_t null_latency_ns = 0;  // null-co
  std::string filesystem;        // "" (none), "ext4" or "xfs"
  uint64_t fs_file_bytes = 0;    // filesystem: the test file's size (resolved, never 0)
  // filesystem: the image's size, max(size_bytes, what the filesystem needs).
  uint64_t image_bytes() const;
  uint32_t num_queues = 1;
  uint32_t queue_size = 256;
  bool iothread = false;
  Aio aio = Aio::Threads;
  CacheMode cache = CacheMode::None;
  bool no_flush = false;
  bool request_merging = true;
  bool operator==(const DiskConfig&) const = default;
};


// One machine + disk combination of the matrix. `values` holds every field of both
// sections ("machine.vcpus", "disk.aio", ...); `params` only those given as lists.
struct MachineVariant {
  MachineConfig machine;
  DiskConfig disk;
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json values = nlohmann::json::object();
};

// One job combination: a declared job with one value for each of its list fields.
struct JobCase {
  JobSpec job;
  nlohmann::json params = nlohmann::json::object();  // "job.bs": 65536, ...
  nlohmann::json values = nlohmann::json::object();  // every job field, "job.<name>"
};

// matrix_exclude: one object; a combination is dropped when it matches every entry.
// Keys are qualified ("machine.x", "disk.x", "job.x") or "target".
using ExcludeRule = std::vector<std::pair<std::string, nlohmann::json>>;

// Interleaved: randomised complete blocks, one boot of every machine per repeat
// (run_plan.h).
enum class RunOrder { Sequential, Random, Interleaved };
// "sequential", "random", "interleaved": the scenario's and the manifest's name.
std::string ToString(RunOrder order);

// Interleaved rounds: boot every machine in every round, or keep each booted (paused)
// between its rounds.
enum class Reboot { PerRound, PerMachine };

struct Scenario {
  std::string path;
  std::string name;
  std::string description;
  MachineConfig machine;         // machines[0], for single-valued scenarios the only one
  DiskConfig disk;               // machines[0]
  std::vector<TargetKind> targets;
  std::vector<JobSpec> jobs;     // every job case's job; target is filled in per run
  std::vector<MachineVariant> machines;  // the machine x disk product, exclusions applied
  std::vector<JobCase> job_cases;        // each job x its list fields, exclusions applied
  std::vector<ExcludeRule> exclude;
  uint32_t repeats = 1;
  uint32_t warmup = 0;
  RunOrder order = RunOrder::Sequential;
  uint64_t order_seed = 1;
  Reboot reboot = Reboot::PerRound;
  nlohmann::json expanded;       // every field with its default applied, for the manifest
};

// True when `values` (qualified field -> value, plus "target") matches every entry.
bool Matches(const ExcludeRule& rule, const nlohmann::json& values);

// A matrix larger than this many runs is refused unless --max-runs raises the limit.
inline constexpr uint64_t kDefaultMaxRuns = 10000;

// Validates a parsed scenario document (used by the fio importer). Refuses a matrix of
// more than `max_runs` runs before expanding it.
Scenario ScenarioFromJson(const nlohmann::json& doc, const std::string& path,
                          uint64_t max_runs = kDefaultMaxRuns);
// The JSON document of a scenario file, not yet validated (a regular file of at most
// 16 MiB, no duplicate keys). Throws ScenarioError("FILE: reason").
nlohmann::json LoadScenarioDocument(const std::string& path);
// Reads and validates a scenario file (a regular file of at most 16 MiB, no duplicate
// keys). Throws ScenarioError("FILE: FIELD: reason").
Scenario LoadScenario(const std::string& path, uint64_t max_runs = kDefaultMaxRuns);
// The same, from text; `path` only names the source in messages.
Scenario ParseScenario(const std::string& text, const std::string& path,
                       uint64_t max_runs = kDefaultMaxRuns);

// "4k", "1m", "64MiB", "512" or a JSON number -> bytes. Throws std::invalid_argument.
uint64_t ParseSize(const nlohmann::json& value);

}  // namespace storbed

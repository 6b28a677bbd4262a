// manifest.json as a typed document (docs/results.md is its schema), and the one place
// that writes it. Threads of one run share a Manifest: every change is applied and the
// file rewritten under one lock, so two hosts' machine entries never overwrite each other.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/results_dir.h"

namespace storbed {

// One backing file (or null-co, or the user's device) as it was made.
struct ManifestBacking {
  std::string path;
  uint64_t size_bytes = 0;
  std::string how, format, filesystem;
  bool null_co = false;
};

// One guest image: its kernel and initramfs.
struct ManifestImage {
  std::string kernel, kernel_release, initrd, content_hash;
  std::vector<std::string> modules, builtin;
  bool from_cache = false;
};

// One bare-metal unit: the loop device over its backing and, for a filesystem, the mount.
struct ManifestBareMetal {
  std::string device, backing;
  std::vector<std::string> runs;
  std::string mount_dir, mount_filesystem;  // "" when the backing is not mounted
};

struct ManifestHostFailure {
  std::string host, uri, error, at;
  std::vector<std::string> moved_runs;
};

struct ManifestDoc {
  nlohmann::json host = nlohmann::json::object();  // DescribeHost()
  // EnvironmentFingerprint(): what compare checks before it judges two directories.
  nlohmann::json environment = nlohmann::json::object();
  std::string scenario_file;
  nlohmann::json scenario = nlohmann::json::object();  // every default applied
  std::string order = "sequential";
  uint64_t order_seed = 0;
  nlohmann::json plan = nlohmann::json::array();  // [{run_id, machine, params}]
  std::string session;
  nlohmann::json hosts = nlohmann::json::array();  // DescribeHosts()
  std::vector<ManifestHostFailure> host_failures;
  std::string started_at, finished_at;  // finished_at "" until the run ends
  // Keyed by BackingLeases::KeyOf; first_backing names the one also written as the
  // legacy "backing" (docs/results.md and tests read it).
  std::map<std::string, ManifestBacking> backings;
  std::string first_backing;
  std::vector<std::pair<std::string, std::string>> backing_copies;  // {for key, path}
  // Keyed by kernel and modules dir; first_image is also written as the legacy "guest_image".
  std::map<std::string, ManifestImage> guest_images;
  std::string first_image;
  std::optional<std::pair<std::string, std::string>> accel;  // {accel, reason}, guests only
  std::string qemu_version;                                  // with accel
  std::map<std::string, nlohmann::json> machines;            // by label, as the guest target saw it
  std::vector<ManifestBareMetal> bare_metal;
  std::optional<std::vector<std::string>> failures;  // set when the run ends
  bool interrupted = false;
  // --until-conclusive: the plan, the looks taken and why the rounds stopped
  // (execute/round_gate.h, docs/results.md); null otherwise.
  nlohmann::json sequential;
  // {io_phase_s, warmup_s, wall_s, share, share_with_warmups}: the measured runs' IO
  // phases over the run's wall time, and with the warm-ups' IO phases.
  nlohmann::json efficiency;
};
void to_json(nlohmann::json& j, const ManifestDoc& m);

class Manifest {
 public:
  // Writes `initial` at once. Throws what ResultsDir::WriteManifest throws (so do all
  // the setters below, which rewrite the file).
  Manifest(ResultsDir& dir, ManifestDoc initial);

  // The first backing of `key`; the first one made is also the legacy "backing".
  void AddBacking(const std::string& key, const ManifestBacking& backing);
  void AddBackingCopy(const std::string& key, const std::string& path);
  void AddGuestImage(const std::string& key, const ManifestImage& image);
  void SetAccel(const std::string& accel, const std::string& reason,
                const std::string& qemu_version);
  void SetMachine(const std::string& label, nlohmann::json entry);
  // Merges `patch` into the machine's entry (RFC 7386), creating it when there is none.
  void UpdateMachine(const std::string& label, const nlohmann::json& patch);
  void AddBareMetal(ManifestBareMetal unit);
  // Adds the failure and marks its host "failed" in hosts.
  void AddHostFailure(ManifestHostFailure failure);
  void MarkInterrupted();
  void SetSequential(nlohmann::json record);
  void SetEfficiency(double io_phase_s, double warmup_s, double wall_s);
  // Stamps finished_at and the failures; `hosts` replaces hosts unless null.
  void Finish(const std::string& finished_at, const std::vector<std::string>& failures,
              const nlohmann::json& hosts);

  nlohmann::json Snapshot() const;  // the JSON as written

 private:
  void Update(const std::function<void(ManifestDoc&)>& change);
  ResultsDir& dir_;
  mutable std::mutex mu_;
  ManifestDoc doc_;
};

}  // namespace storbed

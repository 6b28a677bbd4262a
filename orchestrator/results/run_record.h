// One run = one machine configuration x one job: what was asked, where it ran and
// what it measured. results.json holds one record per run.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/durability.h"
#include "job.h"
#include "io_trace_figures.h"
#include "job_fields.h"
#include "ladder.h"
#include "result.h"

namespace storbed {

// Warmup: a run that completed but only warmed up its combination (kept out of reports).
enum class RunStatus { Ok, Failed, Skipped, Warmup };
std::string ToString(RunStatus s);

struct RunRecord {
  std::string run_id;       // "002-virtio-blk-rand-read", unique in a results dir
  std::string target;       // "virtio-blk", "nvme" or "bare-metal"
  std::string accel;        // "tcg", "kvm", or "host" for bare metal
  std::string machine;      // guest machine directory (relative), "" for bare metal
  std::string device;       // what the agent opened: "/dev/vda", "/dev/loop3"
  // Where it finally ran: the inventory host's name, or "local" (the QEMU backend, a
  // libvirt daemon on this machine without an inventory, bare metal); "none" when no
  // host was left. Not `host`: that key holds the host-side measurements below.
  std::string host_name;
  std::string backend;      // "qemu", "libvirt", or "none" for bare metal
  JobSpec job;
  RunStatus status = RunStatus::Ok;
  std::string error;        // why it failed or was skipped
  std::optional<JobResult> result;
  std::string console_log;  // relative path of the guest console log, "" for bare metal
  double wall_s = 0;        // wall time of the whole run, preparation included
  std::optional<Ladder> ladder;          // depth per layer, application to host device
  std::optional<Durability> durability;  // write jobs with fsync: did the flushes arrive?
  std::optional<IoTraceFigures> io_trace;  // job.trace: where each IO's time went
  nlohmann::json host = nlohmann::json::object();  // clock offset, QEMU thread CPU, warnings
  std::string timelines_file;  // relative path of this run's guest and host timelines
  // The run's matrix combination: list fields' values ("disk.aio", "job.bs"), "repeat"
  // and "warmup", so reports can group runs.
  nlohmann::json params = nlohmann::json::object();
};

// results.json records and manifest.json carry it; version 1 (no key) records hold jobs
// with the old names, which the job reader renames.
inline constexpr int kResultsSchemaVersion = kJobSchemaVersion;

void to_json(nlohmann::json& j, const RunRecord& r);
void from_json(const nlohmann::json& j, RunRecord& r);

}  // namespace storbed

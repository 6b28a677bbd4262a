// What an agent measured for one job: throughput, latency percentiles and the
// block-layer stats of its target. Shared by the agent and the orchestrator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diskstats.h"
#include "io_trace.h"
#include "job.h"
#include "latency_histogram.h"
#include "timeline.h"

namespace storbed {

struct LatencySummary {
  uint64_t count = 0;
  double min_us = 0, mean_us = 0, max_us = 0;
  double p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0;
};

// The physically contiguous pieces of a job's IO buffers (/proc/self/pagemap): a buffer in
// more pieces than the queue's max_segments reaches the device as two or more requests
// per IO.
struct BufferPieces {
  uint32_t buffers = 0;      // buffers measured; 0: not measured
  double median_pieces = 0;  // pieces per buffer
  uint32_t max_pieces = 0;
  uint32_t over_max_segments = 0;  // buffers in more pieces than max_segments
  uint32_t max_segments = 0;       // the queue's limit they were held to
};

struct JobResult {
  std::string job;              // JobSpec::name
  std::string target;           // path the agent opened
  uint64_t ios = 0;             // completed IOs
  uint64_t bytes = 0;           // completed bytes
  double runtime_s = 0;         // the IO phase only
  double iops = 0;
  double mib_s = 0;
  LatencySummary latency;       // per-IO completion latency
  LatencyHistogram latency_histogram;  // its buckets; empty in results from before them
  double prepare_s = 0;         // cache preparation (cold start), never in runtime_s
  std::string prepare_steps;    // what preparation did, e.g. "sync, drop_caches=3, fadvise(DONTNEED)"
  BlockStats block;             // diskstats delta of the target device around the IO phase
  std::vector<std::string> warnings;  // things that make a figure less trustworthy

  // L0: the engine's own in-flight count, time-weighted over the IO phase.
  double app_avg_depth = 0;
  // ns of the IO phase spent with n IOs in flight (n = index), from the same count: the
  // L0 distribution. Empty with numjobs > 1 and in results from before it.
  std::vector<double> app_inflight_ns;
  // io_uring: IOs per io_uring_submit call and completions reaped per wait (0 for psync).
  double avg_submit_batch = 0;
  double avg_complete_batch = 0;
  // How the engine waited for completions: "wait" or "poll" (JobSpec::reap); "" for the
  // synchronous engines, which have nothing to reap.
  std::string reap;
  uint64_t fsyncs = 0;          // successful fsync()/fdatasync() calls in the IO phase
  // The IO phase on the agent's CLOCK_MONOTONIC, to align host samples with it.
  uint64_t io_start_ns = 0;
  uint64_t io_end_ns = 0;
  // The target's blk-mq shape: /sys/block/X/mq/* count and its nr_tags (0 = unknown).
  uint32_t nr_hw_queues = 0;
  uint32_t nr_tags = 0;
  // Guest-side samplers (inflight, diskstats depth, meminfo, vmstat, iowait); t_s is
  // relative to io_start_ns.
  std::vector<Timeline> timelines;

  // The fraction of the region's pages resident after cache preparation, by mincore
  // (cold: what the drop left; -1 = not measured).
  double cached_fraction = -1;
  // What the cold start emptied: "target" (only its pages: fsync + fadvise, BLKFLSBUF for
  // a device), "guest" (drop_caches=3 inside the guest), "host" (drop_caches=3 on the
  // host, every tenant's cache: cache cold-global); "" for keep and older results.
  std::string cache_scope;
  BlockTunables tunables_applied;  // read back after applying JobSpec::tunables
  uint64_t verified_bytes = 0;     // bytes checked byte for byte (verify)
  uint64_t reads = 0, writes = 0;  // IOs by direction (mixed jobs)
  // Passes the IO phase made when it ran in passes (loops > 1 or invalidate_each_pass);
  // 0 for a job run as one IO phase and in older results.
  uint32_t passes = 0;
  // invalidate_each_pass: how long each drop before a later pass took, in order. Outside
  // runtime_s unless the job says invalidate_in_runtime.
  std::vector<double> invalidations_s;
  // huge_buffers: bytes of the IO buffers' mappings the kernel backed with huge pages at
  // the end of the job (/proc/self/smaps), and the bytes mapped; 0 otherwise.
  uint64_t huge_buffer_bytes = 0;
  uint64_t buffer_bytes_mapped = 0;
  // O_DIRECT jobs on a block device: how the IO buffers lay in physical memory at the end
  // of the job, against the queue's max_segments (buffers 0: not measured).
  BufferPieces buffer_pieces;
  // job.trace: what the agent traced (its IOs, joined to the block layer's events, travel
  // apart: io_trace.h); unset for an untraced job.
  std::optional<IoTraceSummary> io_trace;
};

void to_json(nlohmann::json& j, const BufferPieces& p);
void from_json(const nlohmann::json& j, BufferPieces& p);
void to_json(nlohmann::json& j, const LatencySummary& s);
void from_json(const nlohmann::json& j, LatencySummary& s);
void to_json(nlohmann::json& j, const JobResult& r);
void from_json(const nlohmann::json& j, JobResult& r);

}  // namespace storbed

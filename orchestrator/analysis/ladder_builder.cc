#include "analysis/ladder_builder.h"

#include <algorithm>
#include <string>

#include "inflight_stats.h"

namespace storbed {
namespace {

LayerStats Unavailable(const char* layer_id, std::string reason) {
  LayerStats l;
  l.layer = layer_id;
  l.available = false;
  l.reason = std::move(reason);
  return l;
}

// Stores `l` under `layer_id`; a sampler that left the id empty or set another one must
// not move the layer out of its row.
LayerStats AtLayer(LayerStats l, const char* layer_id) {
  l.layer = layer_id;
  return l;
}

// With sleeping waits, each completion sits in L0 for the thread's wake-up before its slot
// is refilled: time no layer below holds the IO. Said where it shows (over 5% of L0 lost
// in the first layer below), with the setting that takes it out.
void NoteWakeUps(const JobResult& r, Ladder& ladder) {
  if (r.reap != "wait" || ladder.layers.size() < 2) return;
  LayerStats& app = ladder.layers[0];
  const LayerStats& below = ladder.layers[1];
  if (!app.available || !below.available || below.avg_depth >= 0.95 * app.avg_depth) return;
  app.notes.push_back(
      "completions reaped by sleeping waits: each one's wake-up is time no "
      "layer below holds the IO (reap poll takes it out)");
}

// Per-second rates of what a layer served, so reads, writes and flushes sit in columns
// of their own.
void SetOps(LayerStats& l, uint64_t reads, uint64_t writes, uint64_t flushes, double seconds) {
  if (seconds <= 0) return;
  l.has_ops = true;
  l.reads_per_s = static_cast<double>(reads) / seconds;
  l.writes_per_s = static_cast<double>(writes) / seconds;
  l.flushes_per_s = static_cast<double>(flushes) / seconds;
}

// The agent's /sys/block/X/inflight samples of `device` inside the IO phase.
std::vector<double> InflightSamples(const JobResult& r, const std::string& device) {
  std::vector<double> out;
  const std::string name = "guest." + device + ".inflight";
  for (const Timeline& t : r.timelines) {
    if (t.name != name) continue;
    for (size_t i = 0; i < t.t_s.size() && i < t.value.size(); ++i)
      if (t.t_s[i] >= 0 && t.t_s[i] <= r.runtime_s) out.push_back(t.value[i]);
  }
  return out;
}

// An IO's maximum from QEMU's thread pool: util/thread-pool.c max_threads defaults to 64.
constexpr double kQemuThreadPoolMax = 64;

}  // namespace

LayerStats AppLayer(const JobResult& r) {
  if (r.app_avg_depth == 0 && r.ios == 0) return Unavailable(kLayerApp, "the job completed no IO");
  LayerStats l;
  l.layer = kLayerApp;
  l.available = true;
  l.source = "agent in-flight count, time-weighted";
  if (r.reap == "poll") l.source += "; completions polled";
  l.avg_depth = r.app_avg_depth;
  l.has_iops = true;
  l.iops = r.iops;
  if (r.ios > 0) {
    l.has_request_size = true;
    l.avg_request_bytes = static_cast<double>(r.bytes) / static_cast<double>(r.ios);
  }
  if (r.latency.count > 0) {
    l.has_latency = true;
    l.mean_latency_us = r.latency.mean_us;
  }
  // The engine's count changes only at its own submits and reaps, so its distribution is
  // exact: the time at each count, no sampling.
  l.inflight = DistributionOfTime(r.app_inflight_ns);
  // Results from before the counts by direction have ios but no reads or writes.
  if (r.reads + r.writes == r.ios) SetOps(l, r.reads, r.writes, r.fsyncs, r.runtime_s);
  // An fsync is not an IO in the engine's count: its time is in no L0 figure, while the
  // layers below count the flushes it sends.
  if (r.fsyncs > 0)
    l.notes.push_back("fsync time is outside the depth and latency (" + std::to_string(r.fsyncs) +
                      " fsyncs)");
  return l;
}

LayerStats BlockLayer(const JobResult& r, const char* layer_id) {
  const BlockStats& b = r.block;
  if (!b.available)
    return Unavailable(layer_id, b.reason.empty() ? "no diskstats for the target" : b.reason);
  LayerStats l;
  l.layer = layer_id;
  l.available = true;
  l.avg_depth = b.avg_queue_depth;
  l.has_iops = true;
  l.iops = b.iops;
  l.source = "/proc/diskstats " + (b.device.empty() ? std::string("of the target") : b.device);
  if (b.reads + b.writes > 0) {
    l.has_request_size = true;
    l.avg_request_bytes = b.avg_request_bytes;
  }
  // The reads' and writes' own queue time per request: field 11's depth also holds the
  // flushes' time, which the application's per-IO latency leaves out. Older results lack
  // it: Little's law, depth / IOPS, with the flushes in.
  const uint64_t ios = b.reads + b.writes;
  if (b.has_rw_ms && ios > 0) {
    l.has_latency = true;
    l.mean_latency_us = static_cast<double>(b.rw_ms) * 1000.0 / static_cast<double>(ios);
  } else if (b.iops > 0) {
    l.has_latency = true;
    l.mean_latency_us = b.avg_queue_depth / b.iops * 1e6;
    l.source += "; latency = depth / IOPS (Little's law)";
  }
  SetOps(l, b.reads, b.writes, b.flushes, b.interval_s);
  // Counters read by the agent just around its IO phase: only their 1 ms resolution (one
  // at each end) blurs the depth. A bound, not a statistical interval.
  if (b.interval_s > 0) {
    l.has_depth_bound = true;
    l.depth_bound = 0.002 / b.interval_s;
    l.bound_basis = "diskstats counters over the IO phase, 1 ms resolution";
  }
  l.inflight = DistributionOfSamples(InflightSamples(r, b.device));
  // Merges make the block layer's requests bigger and fewer than the application's IOs,
  // which explains a lower IOPS and depth here without any loss of concurrency.
  if (b.read_merges + b.write_merges > 0)
    l.notes.push_back(std::to_string(b.read_merges) + " read and " +
                      std::to_string(b.write_merges) + " write merges");
  return l;
}

std::vector<LayerLimit> PathLimits(const JobResult& r, const char* block_layer_id,
                                   const GuestDiskShape* disk) {
  std::vector<LayerLimit> out;
  const bool guest = disk != nullptr;
  if (r.tunables_applied.nr_requests > 0)
    out.push_back({block_layer_id, guest ? "guest nr_requests" : "the device's nr_requests",
                   static_cast<double>(r.tunables_applied.nr_requests)});
  if (r.nr_tags > 0)
    out.push_back({block_layer_id, guest ? "guest blk-mq tags per queue" : "blk-mq tags per queue",
                   static_cast<double>(r.nr_tags) * std::max<uint32_t>(1, r.nr_hw_queues)});
  if (!guest) return out;
  if (disk->has_virtqueues && disk->queue_size > 0)
    out.push_back(
        {kLayerVirtqueue,
         "virtqueue size " + std::to_string(disk->queue_size) + " x num-queues " +
             std::to_string(std::max<uint32_t>(1, disk->num_queues)),
         static_cast<double>(disk->queue_size) * std::max<uint32_t>(1, disk->num_queues)});
  if (disk->aio_threads)
    out.push_back({kLayerHostDevice, "QEMU's aio=threads pool (64 workers)", kQemuThreadPoolMax});
  return out;
}

Ladder GuestLadder(const JobResult& r, const GuestDiskShape& disk, const LayerStats& virtqueue,
                   const LayerStats& qemu_block, const LayerStats& host_device) {
  Ladder ladder;
  ladder.limits = PathLimits(r, kLayerGuestBlock, &disk);
  ladder.layers.push_back(AppLayer(r));
  ladder.layers.push_back(BlockLayer(r, kLayerGuestBlock));
  ladder.layers.push_back(AtLayer(virtqueue, kLayerVirtqueue));
  ladder.layers.push_back(AtLayer(qemu_block, kLayerQemuBlock));
  ladder.layers.push_back(AtLayer(host_device, kLayerHostDevice));
  NoteWakeUps(r, ladder);
  return ladder;
}

Ladder BareMetalLadder(const JobResult& r) {
  Ladder ladder;
  ladder.limits = PathLimits(r, kLayerHostDevice, nullptr);
  ladder.layers.push_back(AppLayer(r));
  ladder.layers.push_back(BlockLayer(r, kLayerHostDevice));
  NoteWakeUps(r, ladder);
  return ladder;
}

}  // namespace storbed

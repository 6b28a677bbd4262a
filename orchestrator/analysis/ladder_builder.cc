#include "analysis/ladder_builder.h"

#include <string>

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
  app.notes.push_back("completions reaped by sleeping waits: each one's wake-up is time no "
                      "layer below holds the IO (reap poll takes it out)");
}

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
  // Little's law: depth = IOPS x residence time, so the mean time a request spends below
  // this layer's entry is depth / IOPS. diskstats has no per-request latency of its own.
  if (b.iops > 0) {
    l.has_latency = true;
    l.mean_latency_us = b.avg_queue_depth / b.iops * 1e6;
    l.source += "; latency = depth / IOPS (Little's law)";
  }
  // Merges make the block layer's requests bigger and fewer than the application's IOs,
  // which explains a lower IOPS and depth here without any loss of concurrency.
  if (b.read_merges + b.write_merges > 0)
    l.notes.push_back(std::to_string(b.read_merges) + " read and " +
                      std::to_string(b.write_merges) + " write merges");
  return l;
}

Ladder GuestLadder(const JobResult& r, const LayerStats& virtqueue, const LayerStats& qemu_block,
                   const LayerStats& host_device) {
  Ladder ladder;
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
  ladder.layers.push_back(AppLayer(r));
  ladder.layers.push_back(BlockLayer(r, kLayerHostDevice));
  NoteWakeUps(r, ladder);
  return ladder;
}

}  // namespace storbed

// Builds the depth ladder of one job from what the agent and the host samplers measured:
// L0 from the agent's own counters, L1 (or L3 on bare metal) from the agent's diskstats
// delta of its target, the QEMU and host layers as the samplers measured them. Each rung
// carries its in-flight distribution where one was sampled, its depth interval, and its
// reads, writes and flushes per second.
#pragma once

#include <cstdint>
#include <vector>

#include "job.h"
#include "ladder.h"
#include "result.h"

namespace storbed {

// L0: the agent's time-weighted in-flight count and its distribution, IOPS, bytes per IO,
// mean completion latency and ops by kind (fsyncs as flushes). Unavailable when the job
// completed no IO and has no depth.
LayerStats AppLayer(const JobResult& r);

// A block layer from the agent's diskstats delta of its target (`r.block`), stored under
// `layer_id`, with the distribution of the agent's /sys/block/X/inflight samples. Mean
// latency is the reads' and writes' own queue time per request (Little's law, depth /
// IOPS, in results from before it). Unavailable with the block stats' reason when the
// agent could not read them.
LayerStats BlockLayer(const JobResult& r, const char* layer_id);

// What of the guest's disk can cap a layer's in-flight count (the cap's cause when the
// count stops at it).
struct GuestDiskShape {
  bool has_virtqueues = false;  // virtio-blk, virtio-scsi
  uint32_t queue_size = 0;      // per virtqueue
  uint32_t num_queues = 0;
  bool aio_threads = false;     // QEMU aio=threads: a pool of at most 64 workers
};

// The limits a job's own settings put on its path: the target's nr_requests (the guest
// block layer, or the host device on bare metal), plus the guest disk's.
std::vector<LayerLimit> PathLimits(const JobResult& r, const char* block_layer_id,
                                   const GuestDiskShape* disk);

// A guest run: L0, L1 guest block, L2 virtqueue, L2 QEMU block, L3 host device. The three
// host-side layers come from the samplers; each is stored under its position's layer id.
Ladder GuestLadder(const JobResult& r, const GuestDiskShape& disk, const LayerStats& virtqueue,
                   const LayerStats& qemu_block, const LayerStats& host_device);

// A bare-metal run: L0 and L3, where L3 is the agent's own target (the loop device).
Ladder BareMetalLadder(const JobResult& r);

}  // namespace storbed

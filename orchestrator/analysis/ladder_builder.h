// Builds the depth ladder of one job from what the agent and the host samplers measured:
// L0 from the agent's own counters, L1 (or L3 on bare metal) from the agent's diskstats
// delta of its target, the QEMU and host layers as the samplers measured them.
#pragma once

#include "job.h"
#include "ladder.h"
#include "result.h"

namespace storbed {

// L0: the agent's time-weighted in-flight count, IOPS, bytes per IO and mean completion
// latency. Unavailable when the job completed no IO and has no depth.
LayerStats AppLayer(const JobResult& r);

// A block layer from the agent's diskstats delta of its target (`r.block`), stored under
// `layer_id`. Mean latency is Little's law: depth / IOPS. Unavailable with the block
// stats' reason when the agent could not read them.
LayerStats BlockLayer(const JobResult& r, const char* layer_id);

// A guest run: L0, L1 guest block, L2 virtqueue, L2 QEMU block, L3 host device. The three
// host-side layers come from the samplers; each is stored under its position's layer id.
Ladder GuestLadder(const JobResult& r, const LayerStats& virtqueue, const LayerStats& qemu_block,
                   const LayerStats& host_device);

// A bare-metal run: L0 and L3, where L3 is the agent's own target (the loop device).
Ladder BareMetalLadder(const JobResult& r);

}  // namespace storbed

// Counters of one disk in QEMU's block layer, whoever read them: QMP query-blockstats
// (sampling/qmp_blockstats) or libvirt's bulk domain stats (block.N.*). Plain data, so
// backends can hand them to the samplers without depending on them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace storbed {

struct TimedBlockStats {
  uint64_t interval_length_s = 0;
  double avg_rd_queue_depth = 0, avg_wr_queue_depth = 0;
  uint64_t avg_rd_latency_ns = 0, avg_wr_latency_ns = 0, avg_flush_latency_ns = 0;
};

// One entry of the reply. With -blockdev/-device, device is "" and qdev is the device's
// QOM path for virtio ("/machine/peripheral/dev-d0/virtio-backend") but the bare id for
// nvme ("dev-d1").
struct BlockCounters {
  std::string device, node_name, qdev;
  uint64_t rd_operations = 0, wr_operations = 0, flush_operations = 0;
  uint64_t rd_bytes = 0, wr_bytes = 0, rd_merged = 0, wr_merged = 0;
  uint64_t rd_total_time_ns = 0, wr_total_time_ns = 0, flush_total_time_ns = 0;
  std::vector<TimedBlockStats> timed_stats;
};

}  // namespace storbed

// QMP query-blockstats: per-device counters of QEMU's block layer (L2 of the depth ladder)
// and what a delta of two samples says: IOPS, request size, mean latency and the average
// depth by Little's law (total_time_ns is the summed residence time of completed requests).
//
// Timed stats (timed_stats[].avg_rd_queue_depth ...) exist only where the BlockBackend was
// given `stats-intervals`: QEMU 7.2 accepts it on -drive only (-drive ...,stats-intervals.0=10);
// -blockdev and the virtio-blk/nvme devices reject it ("Parameter 'stats-intervals' is
// unexpected"), so with storbed's -blockdev/-device disks timed_stats is always [].
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/block_counters.h"
#include "error.h"
#include "ladder.h"

namespace storbed {

// A reply that is not the shape QEMU 7.2 sends. raw() keeps the text for the results dir.
class BlockstatsError : public Error {
 public:
  BlockstatsError(const std::string& what, std::string raw)
      : Error(ErrorKind::Host, what), raw_(std::move(raw)) {}
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
};

// Parses the "return" value (a list). Throws BlockstatsError naming the entry and field.
std::vector<BlockCounters> ParseBlockstats(const nlohmann::json& reply);
// Same from text: the list, or a whole {"return": [...]} line. Throws BlockstatsError
// (truncated or non-JSON text included).
std::vector<BlockCounters> ParseBlockstatsText(const std::string& text);

// True when `qdev` names the device with id `device_id` ("dev-d0"): the bare id, or
// /machine/peripheral/<id> with or without "/virtio-backend".
bool QdevMatches(const std::string& qdev, const std::string& device_id);
// The entry of `device_id`, or nullptr.
const BlockCounters* FindBlockCounters(const std::vector<BlockCounters>& all,
                                       const std::string& device_id);

// What the block layer did between two samples of one device.
struct BlockDelta {
  bool valid = false;
  std::string reason;  // why not valid (counters went backwards, empty interval)
  double interval_s = 0;
  uint64_t reads = 0, writes = 0, flushes = 0, read_bytes = 0, write_bytes = 0;
  uint64_t rw_time_ns = 0, flush_time_ns = 0;
  double iops = 0;               // reads+writes per second (flushes not counted)
  double avg_request_bytes = 0;  // 0 when no reads or writes
  double avg_depth = 0;          // delta(rd+wr+flush total_time_ns) / interval_ns
  double mean_latency_us = 0;    // delta(rd+wr total_time_ns) / delta(reads+writes)
};
BlockDelta DiffBlockCounters(const BlockCounters& before, const BlockCounters& after,
                             uint64_t interval_ns);

// The L2 "QEMU block" rung from a delta; `source` like "query-blockstats dev-d0".
// `after` supplies the timed stats note when QEMU has any.
LayerStats QemuBlockLayer(const BlockDelta& d, const BlockCounters& after,
                          const std::string& source);

}  // namespace storbed

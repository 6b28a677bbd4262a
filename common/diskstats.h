// /proc/diskstats parsing and the figures a delta of two snapshots gives:
// IOPS, average request size, merges and average queue depth by Little's law.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed {

// One line of /proc/diskstats (the fields this project uses).
struct DiskCounters {
  unsigned major = 0, minor = 0;
  std::string name;
  uint64_t reads = 0, read_merges = 0, read_sectors = 0, read_ms = 0;
  uint64_t writes = 0, write_merges = 0, write_sectors = 0, write_ms = 0;
  uint64_t in_flight = 0, io_ms = 0;
  // Field 11: the sum of each request's time in the queue (ms). Its delta over an
  // interval divided by the interval is the average depth (Little's law).
  uint64_t weighted_ms = 0;
  uint64_t flushes = 0, flush_ms = 0;  // kernel >= 5.5; 0 when absent
};

// Parses the whole file's text. Throws std::runtime_error naming the bad line.
std::vector<DiskCounters> ParseDiskstats(const std::string& text);

// Finds `device` (a name like "vda", or "/dev/vda") in the text; nullopt when absent.
std::optional<DiskCounters> FindDisk(const std::string& text, const std::string& device);

// What a block device did between two snapshots.
struct BlockStats {
  bool available = false;
  std::string reason;        // why not available
  std::string device;        // kernel name, e.g. "vda" or "loop3"
  std::string layer;         // "guest block layer" or "host device"
  double interval_s = 0;
  uint64_t reads = 0, writes = 0, read_merges = 0, write_merges = 0;
  uint64_t read_bytes = 0, write_bytes = 0, flushes = 0;
  // Time the reads and writes spent in the queue (fields 4 + 8), flushes left out: field
  // 11's depth counts flushes too (kernel >= 5.5), the application's latency does not.
  bool has_rw_ms = false;
  uint64_t rw_ms = 0;
  double iops = 0;
  double avg_request_bytes = 0;  // (read+write bytes) / (reads+writes)
  double avg_queue_depth = 0;    // delta weighted_ms / interval ms
  double utilization = 0;        // delta io_ms / interval ms
};

BlockStats DiffDiskCounters(const DiskCounters& before, const DiskCounters& after,
                            double interval_s);
BlockStats UnavailableBlockStats(std::string reason);

void to_json(nlohmann::json& j, const BlockStats& s);
void from_json(const nlohmann::json& j, BlockStats& s);

}  // namespace storbed

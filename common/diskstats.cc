#include "diskstats.h"

#include <sstream>
#include <stdexcept>

namespace storbed {

std::vector<DiskCounters> ParseDiskstats(const std::string& text) {
  std::vector<DiskCounters> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream in(line);
    DiskCounters c;
    uint64_t unused_write_ticks_discard[4];
    in >> c.major >> c.minor >> c.name >> c.reads >> c.read_merges >> c.read_sectors >> c.read_ms >>
        c.writes >> c.write_merges >> c.write_sectors >> c.write_ms >> c.in_flight >> c.io_ms >>
        c.weighted_ms;
    if (!in) throw std::runtime_error("/proc/diskstats: malformed line: '" + line + "'");
    // Optional: discards (4 fields, kernel >= 4.18), then flushes (2 fields, >= 5.5).
    if (in >> unused_write_ticks_discard[0] >> unused_write_ticks_discard[1] >>
        unused_write_ticks_discard[2] >> unused_write_ticks_discard[3]) {
      uint64_t flushes = 0, flush_ms = 0;
      if (in >> flushes >> flush_ms) {
        c.flushes = flushes;
        c.flush_ms = flush_ms;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<DiskCounters> FindDisk(const std::string& text, const std::string& device) {
  std::string name = device;
  if (name.rfind("/dev/", 0) == 0) name = name.substr(5);
  for (auto& c : ParseDiskstats(text))
    if (c.name == name) return c;
  return std::nullopt;
}

BlockStats DiffDiskCounters(const DiskCounters& before, const DiskCounters& after,
                            double interval_s) {
  BlockStats s;
  s.available = interval_s > 0;
  if (!s.available) s.reason = "zero-length interval";
  s.device = after.name;
  s.interval_s = interval_s;
  s.reads = after.reads - before.reads;
  s.writes = after.writes - before.writes;
  s.read_merges = after.read_merges - before.read_merges;
  s.write_merges = after.write_merges - before.write_merges;
  // diskstats sectors are always 512 bytes, whatever the device's block size.
  s.read_bytes = (after.read_sectors - before.read_sectors) * 512;
  s.write_bytes = (after.write_sectors - before.write_sectors) * 512;
  s.flushes = after.flushes - before.flushes;
  s.has_rw_ms = true;
  s.rw_ms = (after.read_ms - before.read_ms) + (after.write_ms - before.write_ms);
  const uint64_t ios = s.reads + s.writes;
  if (interval_s > 0) {
    s.iops = ios / interval_s;
    s.avg_queue_depth = (after.weighted_ms - before.weighted_ms) / (interval_s * 1000.0);
    s.utilization = (after.io_ms - before.io_ms) / (interval_s * 1000.0);
  }
  if (ios > 0) s.avg_request_bytes = double(s.read_bytes + s.write_bytes) / ios;
  return s;
}

BlockStats UnavailableBlockStats(std::string reason) {
  BlockStats s;
  s.reason = std::move(reason);
  return s;
}

void to_json(nlohmann::json& j, const BlockStats& s) {
  j = nlohmann::json{{"available", s.available},
                     {"device", s.device},
                     {"layer", s.layer},
                     {"interval_s", s.interval_s},
                     {"reads", s.reads},
                     {"writes", s.writes},
                     {"read_merges", s.read_merges},
                     {"write_merges", s.write_merges},
                     {"read_bytes", s.read_bytes},
                     {"write_bytes", s.write_bytes},
                     {"flushes", s.flushes},
                     {"iops", s.iops},
                     {"avg_request_bytes", s.avg_request_bytes},
                     {"avg_queue_depth", s.avg_queue_depth},
                     {"utilization", s.utilization}};
  if (s.has_rw_ms) j["rw_ms"] = s.rw_ms;
  if (!s.available) j["reason"] = s.reason;
}

void from_json(const nlohmann::json& j, BlockStats& s) {
  s.available = j.at("available").get<bool>();
  s.reason = j.value("reason", std::string());
  s.device = j.value("device", std::string());
  s.layer = j.value("layer", std::string());
  s.interval_s = j.value("interval_s", 0.0);
  s.reads = j.value("reads", uint64_t{0});
  s.writes = j.value("writes", uint64_t{0});
  s.read_merges = j.value("read_merges", uint64_t{0});
  s.write_merges = j.value("write_merges", uint64_t{0});
  s.read_bytes = j.value("read_bytes", uint64_t{0});
  s.write_bytes = j.value("write_bytes", uint64_t{0});
  s.has_rw_ms = j.contains("rw_ms");
  s.rw_ms = j.value("rw_ms", uint64_t{0});
  s.flushes = j.value("flushes", uint64_t{0});
  s.iops = j.value("iops", 0.0);
  s.avg_request_bytes = j.value("avg_request_bytes", 0.0);
  s.avg_queue_depth = j.value("avg_queue_depth", 0.0);
  s.utilization = j.value("utilization", 0.0);
}

}  // namespace storbed

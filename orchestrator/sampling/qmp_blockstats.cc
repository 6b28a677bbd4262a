#include "sampling/qmp_blockstats.h"

#include <cstdio>

#include "number_format.h"
#include "strict_json.h"

namespace storbed {
namespace {

using nlohmann::json;

uint64_t Counter(const json& stats, const char* field, const std::string& where) {
  auto it = stats.find(field);
  if (it == stats.end() || !it->is_number_unsigned()) {
    // QEMU's uint64/int counters are never negative; a missing or signed one means the
    // reply is not what we parse.
    if (it != stats.end() && it->is_number_integer() && it->get<int64_t>() >= 0) {
      return it->get<uint64_t>();
    }
    throw BlockstatsError("query-blockstats " + where + ": field stats." + field +
                              (it == stats.end() ? " is missing" : " is not a counter"),
                          stats.dump());
  }
  return it->get<uint64_t>();
}

TimedBlockStats ParseTimed(const json& t, const std::string& where) {
  if (!t.is_object())
    throw BlockstatsError(where + ": a timed_stats entry is not an object", t.dump());
  TimedBlockStats s;
  try {
    s.interval_length_s = t.at("interval_length").get<uint64_t>();
    s.avg_rd_queue_depth = t.value("avg_rd_queue_depth", 0.0);
    s.avg_wr_queue_depth = t.value("avg_wr_queue_depth", 0.0);
    s.avg_rd_latency_ns = t.value("avg_rd_latency_ns", uint64_t{0});
    s.avg_wr_latency_ns = t.value("avg_wr_latency_ns", uint64_t{0});
    s.avg_flush_latency_ns = t.value("avg_flush_latency_ns", uint64_t{0});
  } catch (const json::exception& e) {
    throw BlockstatsError(where + ": bad timed_stats entry (" + e.what() + ")", t.dump());
  }
  return s;
}

BlockCounters ParseEntry(const json& e, size_t index) {
  std::string where = "entry " + std::to_string(index);
  if (!e.is_object())
    throw BlockstatsError("query-blockstats " + where + " is not an object", e.dump());
  BlockCounters c;
  auto str = [&](const char* f) -> std::string {
    auto it = e.find(f);
    return it != e.end() && it->is_string() ? it->get<std::string>() : "";
  };
  c.device = str("device");
  c.node_name = str("node-name");
  c.qdev = str("qdev");
  if (!c.qdev.empty()) where += " (qdev " + c.qdev + ")";
  auto st = e.find("stats");
  if (st == e.end() || !st->is_object()) {
    throw BlockstatsError("query-blockstats " + where + " has no stats object", e.dump());
  }
  const json& s = *st;
  c.rd_operations = Counter(s, "rd_operations", where);
  c.wr_operations = Counter(s, "wr_operations", where);
  c.flush_operations = Counter(s, "flush_operations", where);
  c.rd_bytes = Counter(s, "rd_bytes", where);
  c.wr_bytes = Counter(s, "wr_bytes", where);
  c.rd_merged = Counter(s, "rd_merged", where);
  c.wr_merged = Counter(s, "wr_merged", where);
  c.rd_total_time_ns = Counter(s, "rd_total_time_ns", where);
  c.wr_total_time_ns = Counter(s, "wr_total_time_ns", where);
  c.flush_total_time_ns = Counter(s, "flush_total_time_ns", where);
  if (auto t = s.find("timed_stats"); t != s.end()) {
    if (!t->is_array())
      throw BlockstatsError("query-blockstats " + where + ": timed_stats is not a list", e.dump());
    for (const json& x : *t) c.timed_stats.push_back(ParseTimed(x, "query-blockstats " + where));
  }
  return c;
}

}  // namespace

std::vector<BlockCounters> ParseBlockstats(const json& reply) {
  if (!reply.is_array()) {
    throw BlockstatsError(
        "query-blockstats returned " + std::string(reply.type_name()) + ", not a list",
        reply.dump());
  }
  std::vector<BlockCounters> out;
  for (size_t i = 0; i < reply.size(); ++i) out.push_back(ParseEntry(reply[i], i));
  return out;
}

std::vector<BlockCounters> ParseBlockstatsText(const std::string& text) {
  json j = ParseJsonOrDiscarded(text);
  if (j.is_discarded()) {
    throw BlockstatsError("query-blockstats reply is not valid JSON (truncated?)", text);
  }
  if (j.is_object() && j.contains("return")) j = j.at("return");
  try {
    return ParseBlockstats(j);
  } catch (const BlockstatsError& e) {
    throw BlockstatsError(e.what(), text);  // keep the whole reply, not just the entry
  }
}

bool QdevMatches(const std::string& qdev, const std::string& device_id) {
  if (device_id.empty()) return false;
  const std::string peripheral = "/machine/peripheral/" + device_id;
  return qdev == device_id || qdev == peripheral || qdev == peripheral + "/virtio-backend";
}

const BlockCounters* FindBlockCounters(const std::vector<BlockCounters>& all,
                                       const std::string& device_id) {
  for (const BlockCounters& c : all) {
    if (QdevMatches(c.qdev, device_id)) return &c;
  }
  return nullptr;
}

BlockDelta DiffBlockCounters(const BlockCounters& before, const BlockCounters& after,
                             uint64_t interval_ns) {
  BlockDelta d;
  if (interval_ns == 0) {
    d.reason = "the two query-blockstats samples have the same timestamp";
    return d;
  }
  bool backwards = false;
  auto delta = [&](uint64_t a, uint64_t b) {
    if (b < a) backwards = true;
    return b >= a ? b - a : 0;
  };
  d.reads = delta(before.rd_operations, after.rd_operations);
  d.writes = delta(before.wr_operations, after.wr_operations);
  d.flushes = delta(before.flush_operations, after.flush_operations);
  d.read_bytes = delta(before.rd_bytes, after.rd_bytes);
  d.write_bytes = delta(before.wr_bytes, after.wr_bytes);
  d.rw_time_ns = delta(before.rd_total_time_ns, after.rd_total_time_ns) +
                 delta(before.wr_total_time_ns, after.wr_total_time_ns);
  d.flush_time_ns = delta(before.flush_total_time_ns, after.flush_total_time_ns);
  if (backwards) {
    // Counters reset only when the device was unplugged and replugged: no valid delta.
    d.reason = "query-blockstats counters of " + after.qdev + " went backwards (device reset?)";
    return d;
  }
  d.valid = true;
  d.interval_s = static_cast<double>(interval_ns) / 1e9;
  const uint64_t ops = d.reads + d.writes;
  d.iops = static_cast<double>(ops) / d.interval_s;
  if (ops > 0) {
    d.avg_request_bytes = static_cast<double>(d.read_bytes + d.write_bytes) / ops;
    d.mean_latency_us = static_cast<double>(d.rw_time_ns) / ops / 1e3;
  }
  d.avg_depth = static_cast<double>(d.rw_time_ns + d.flush_time_ns) / interval_ns;
  return d;
}

LayerStats QemuBlockLayer(const BlockDelta& d, const BlockCounters& after,
                          const std::string& source) {
  LayerStats l;
  l.layer = kLayerQemuBlock;
  l.source = source;
  if (!d.valid) {
    l.reason = d.reason;
    return l;
  }
  l.available = true;
  l.avg_depth = d.avg_depth;
  l.has_iops = true;
  l.iops = d.iops;
  const bool any = d.reads + d.writes > 0;
  l.has_request_size = any;
  l.avg_request_bytes = d.avg_request_bytes;
  l.has_latency = any;
  l.mean_latency_us = d.mean_latency_us;
  if (d.interval_s > 0) {
    l.has_ops = true;
    l.reads_per_s = static_cast<double>(d.reads) / d.interval_s;
    l.writes_per_s = static_cast<double>(d.writes) / d.interval_s;
    l.flushes_per_s = static_cast<double>(d.flushes) / d.interval_s;
  }
  // QEMU adds a request's time when it completes: one still in flight at the window's
  // edge counts in the window it finishes in.
  l.notes.push_back("depth from completed requests' total_time_ns (flushes included)");
  if (d.flushes > 0) l.notes.push_back(std::to_string(d.flushes) + " flushes");
  for (const TimedBlockStats& t : after.timed_stats) {
    l.notes.push_back("QEMU timed stats over the last " + std::to_string(t.interval_length_s) +
                      " s: avg rd depth " + FormatFixed(t.avg_rd_queue_depth, 2) +
                      ", avg wr depth " + FormatFixed(t.avg_wr_queue_depth, 2));
  }
  return l;
}

}  // namespace storbed

#include "result.h"

#include "strict_json.h"

namespace storbed {

void to_json(nlohmann::json& j, const LatencySummary& s) {
  j = nlohmann::json{{"count", s.count},   {"min_us", s.min_us}, {"mean_us", s.mean_us},
                     {"max_us", s.max_us}, {"p50_us", s.p50_us}, {"p90_us", s.p90_us},
                     {"p99_us", s.p99_us}, {"p999_us", s.p999_us}};
}

void from_json(const nlohmann::json& j, LatencySummary& s) {
  s.count = WholeNumber<uint64_t>(j.at("count"));
  s.min_us = j.at("min_us").get<double>();
  s.mean_us = j.at("mean_us").get<double>();
  s.max_us = j.at("max_us").get<double>();
  s.p50_us = j.at("p50_us").get<double>();
  s.p90_us = j.at("p90_us").get<double>();
  s.p99_us = j.at("p99_us").get<double>();
  s.p999_us = j.at("p999_us").get<double>();
}

void to_json(nlohmann::json& j, const BufferPieces& p) {
  j = nlohmann::json{{"buffers", p.buffers},
                     {"median_pieces", p.median_pieces},
                     {"max_pieces", p.max_pieces},
                     {"over_max_segments", p.over_max_segments},
                     {"max_segments", p.max_segments}};
}

void from_json(const nlohmann::json& j, BufferPieces& p) {
  p.buffers = WholeNumber<uint32_t>(j.at("buffers"));
  p.median_pieces = j.at("median_pieces").get<double>();
  p.max_pieces = WholeNumber<uint32_t>(j.at("max_pieces"));
  p.over_max_segments = WholeNumber<uint32_t>(j.at("over_max_segments"));
  p.max_segments = WholeNumber<uint32_t>(j.at("max_segments"));
}

void to_json(nlohmann::json& j, const JobResult& r) {
  j = nlohmann::json{{"job", r.job},
                     {"target", r.target},
                     {"ios", r.ios},
                     {"bytes", r.bytes},
                     {"runtime_s", r.runtime_s},
                     {"iops", r.iops},
                     {"mib_s", r.mib_s},
                     {"latency", r.latency},
                     {"latency_histogram", r.latency_histogram},
                     {"prepare_s", r.prepare_s},
                     {"prepare_steps", r.prepare_steps},
                     {"block", r.block},
                     {"warnings", r.warnings},
                     {"app_avg_depth", r.app_avg_depth},
                     {"app_inflight_ns", r.app_inflight_ns},
                     {"avg_submit_batch", r.avg_submit_batch},
                     {"avg_complete_batch", r.avg_complete_batch},
                     {"reap", r.reap},
                     {"fsyncs", r.fsyncs},
                     {"io_start_ns", r.io_start_ns},
                     {"io_end_ns", r.io_end_ns},
                     {"nr_hw_queues", r.nr_hw_queues},
                     {"nr_tags", r.nr_tags},
                     {"timelines", r.timelines},
                     {"cached_fraction", r.cached_fraction},
                     {"cache_scope", r.cache_scope},
                     {"tunables_applied", r.tunables_applied},
                     {"verified_bytes", r.verified_bytes},
                     {"reads", r.reads},
                     {"writes", r.writes},
                     {"passes", r.passes},
                     {"invalidations_s", r.invalidations_s},
                     {"huge_buffer_bytes", r.huge_buffer_bytes},
                     {"buffer_bytes_mapped", r.buffer_bytes_mapped},
                     {"buffer_pieces", r.buffer_pieces}};
  if (r.io_trace) j["io_trace"] = *r.io_trace;
}

void from_json(const nlohmann::json& j, JobResult& r) {
  r.job = j.at("job").get<std::string>();
  r.target = j.at("target").get<std::string>();
  r.ios = WholeNumber<uint64_t>(j.at("ios"));
  r.bytes = WholeNumber<uint64_t>(j.at("bytes"));
  r.runtime_s = j.at("runtime_s").get<double>();
  r.iops = j.at("iops").get<double>();
  r.mib_s = j.at("mib_s").get<double>();
  r.latency = j.at("latency").get<LatencySummary>();
  r.latency_histogram = j.value("latency_histogram", LatencyHistogram{});
  r.prepare_s = j.value("prepare_s", 0.0);
  r.prepare_steps = j.value("prepare_steps", std::string());
  r.block = j.at("block").get<BlockStats>();
  r.warnings = j.value("warnings", std::vector<std::string>{});
  r.app_avg_depth = j.value("app_avg_depth", 0.0);
  r.app_inflight_ns = j.value("app_inflight_ns", std::vector<double>{});
  r.avg_submit_batch = j.value("avg_submit_batch", 0.0);
  r.avg_complete_batch = j.value("avg_complete_batch", 0.0);
  r.reap = j.value("reap", std::string());
  r.fsyncs = j.value("fsyncs", uint64_t{0});
  r.io_start_ns = j.value("io_start_ns", uint64_t{0});
  r.io_end_ns = j.value("io_end_ns", uint64_t{0});
  r.nr_hw_queues = j.value("nr_hw_queues", 0u);
  r.nr_tags = j.value("nr_tags", 0u);
  r.timelines = j.value("timelines", std::vector<Timeline>{});
  r.cached_fraction = j.value("cached_fraction", -1.0);
  r.cache_scope = j.value("cache_scope", std::string());
  r.tunables_applied = j.value("tunables_applied", BlockTunables{});
  r.verified_bytes = j.value("verified_bytes", uint64_t{0});
  r.reads = j.value("reads", uint64_t{0});
  r.writes = j.value("writes", uint64_t{0});
  r.passes = j.value("passes", 0u);
  r.invalidations_s = j.value("invalidations_s", std::vector<double>{});
  r.huge_buffer_bytes = j.value("huge_buffer_bytes", uint64_t{0});
  r.buffer_bytes_mapped = j.value("buffer_bytes_mapped", uint64_t{0});
  r.buffer_pieces = j.value("buffer_pieces", BufferPieces{});
  if (j.contains("io_trace")) r.io_trace = j.at("io_trace").get<IoTraceSummary>();
}

}  // namespace storbed

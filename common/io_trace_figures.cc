#include "io_trace_figures.h"

#include "strict_json.h"

namespace storbed {

using nlohmann::json;

namespace {

json Opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> Opt(const json& j, const char* key) {
  return j.contains(key) && !j.at(key).is_null() ? std::optional(j.at(key).get<double>())
                                                  : std::nullopt;
}

}  // namespace

void to_json(json& j, const IoTraceFigures& f) {
  json segments = json::array(), waterfalls = json::array(), depth = json::array(),
       not_traced = json::array();
  for (const SegmentFigures& s : f.segments)
    segments.push_back({{"name", s.name}, {"from", s.from}, {"to", s.to}, {"clocks", s.clocks},
                        {"p50_us", s.p50_us}, {"p90_us", s.p90_us}, {"p99_us", s.p99_us},
                        {"max_us", s.max_us}, {"mean_us", s.mean_us},
                        {"percentiles_us", s.percentiles_us}});
  for (const Waterfall& w : f.waterfalls) {
    json steps = json::array();
    for (const WaterfallStep& s : w.steps)
      steps.push_back({{"segment", s.segment}, {"start_us", s.start_us}, {"us", s.us}});
    waterfalls.push_back({{"which", w.which}, {"latency_us", w.latency_us}, {"steps", steps}});
  }
  for (const DepthFromIos& d : f.depth)
    depth.push_back({{"layer", d.layer}, {"interval", d.interval}, {"depth", d.depth},
                     {"ios_share", d.ios_share}, {"counter", Opt(d.counter)},
                     {"counter_over_phase", Opt(d.counter_over_phase)}, {"window", d.window},
                     {"diff_pct", Opt(d.diff_pct)}, {"note", d.note}});
  for (const NotTraced& n : f.not_traced)
    not_traced.push_back({{"layer", n.layer}, {"reason", n.reason}});
  j = json{{"path", f.path},
           {"ios", f.ios},
           {"joined", f.joined},
           {"joined_share", f.joined_share},
           {"missing", {{"agent", f.agent_missing}, {"qemu", f.qemu_missing}, {"host", f.host_missing}}},
           {"ambiguous",
            {{"agent", f.agent_ambiguous}, {"qemu", f.qemu_ambiguous}, {"host", f.host_ambiguous}}},
           {"points", f.points},
           {"not_traced", not_traced},
           {"clock",
            {{"offset_ns", f.clock_offset_ns},
             {"uncertainty_ns", f.clock_uncertainty_ns},
             {"method", f.clock_method},
             {"drift", f.clock_drift}}},
           {"resolution_ns", f.resolution_ns},
           {"block_clock", f.block_clock},
           {"segments", segments},
           {"waterfalls", waterfalls},
           {"depth", depth},
           {"share_before_issue", f.share_before_issue},
           {"share_after_complete", f.share_after_complete},
           {"queued_before_submit_us", f.queued_before_submit_us},
           {"configured_backend_us", Opt(f.configured_backend_us)},
           {"backend_min_us", f.backend_min_us},
           {"backend_p50_us", f.backend_p50_us},
           {"qemu_timer_slack_us", Opt(f.qemu_timer_slack_us)},
           {"joined_p50_us", f.joined_p50_us},
           {"histogram_p50_us", f.histogram_p50_us},
           {"p50_diff_pct", f.p50_diff_pct},
           {"file", f.file},
           {"file_ios", f.file_ios},
           {"file_cap", f.file_cap},
           {"complete", f.complete},
           {"warnings", f.warnings},
           {"overhead", f.overhead}};
}

void from_json(const json& j, IoTraceFigures& f) {
  f.path = j.at("path").get<std::string>();
  f.ios = WholeNumber<uint64_t>(j.at("ios"));
  f.joined = WholeNumber<uint64_t>(j.at("joined"));
  f.joined_share = j.at("joined_share").get<double>();
  const json& missing = j.at("missing");
  const json& ambiguous = j.at("ambiguous");
  f.agent_missing = WholeNumber<uint64_t>(missing.at("agent"));
  f.qemu_missing = WholeNumber<uint64_t>(missing.at("qemu"));
  f.host_missing = WholeNumber<uint64_t>(missing.at("host"));
  f.agent_ambiguous = WholeNumber<uint64_t>(ambiguous.at("agent"));
  f.qemu_ambiguous = WholeNumber<uint64_t>(ambiguous.at("qemu"));
  f.host_ambiguous = WholeNumber<uint64_t>(ambiguous.at("host"));
  f.points = j.at("points").get<std::vector<std::string>>();
  for (const json& n : j.at("not_traced"))
    f.not_traced.push_back({n.at("layer").get<std::string>(), n.at("reason").get<std::string>()});
  const json& c = j.at("clock");
  f.clock_offset_ns = WholeNumber<int64_t>(c.at("offset_ns"));
  f.clock_uncertainty_ns = WholeNumber<uint64_t>(c.at("uncertainty_ns"));
  f.clock_method = c.at("method").get<std::string>();
  f.clock_drift = c.at("drift").get<bool>();
  f.resolution_ns = WholeNumber<uint64_t>(j.at("resolution_ns"));
  f.block_clock = j.value("block_clock", std::string());
  for (const json& s : j.at("segments"))
    f.segments.push_back({s.at("name").get<std::string>(), s.at("from").get<std::string>(),
                          s.at("to").get<std::string>(), s.at("clocks").get<std::string>(),
                          s.at("p50_us").get<double>(), s.at("p90_us").get<double>(),
                          s.at("p99_us").get<double>(), s.at("max_us").get<double>(),
                          s.at("mean_us").get<double>(),
                          s.at("percentiles_us").get<std::vector<double>>()});
  for (const json& w : j.at("waterfalls")) {
    Waterfall wf{w.at("which").get<std::string>(), w.at("latency_us").get<double>(), {}};
    for (const json& s : w.at("steps"))
      wf.steps.push_back({s.at("segment").get<std::string>(), s.at("start_us").get<double>(),
                          s.at("us").get<double>()});
    f.waterfalls.push_back(std::move(wf));
  }
  for (const json& d : j.at("depth"))
    f.depth.push_back({d.at("layer").get<std::string>(), d.at("interval").get<std::string>(),
                       d.at("depth").get<double>(), d.at("ios_share").get<double>(),
                       Opt(d, "counter"), Opt(d, "counter_over_phase"),
                       d.value("window", std::string()), Opt(d, "diff_pct"),
                       d.at("note").get<std::string>()});
  f.share_before_issue = j.at("share_before_issue").get<double>();
  f.share_after_complete = j.at("share_after_complete").get<double>();
  f.queued_before_submit_us = j.value("queued_before_submit_us", 0.0);
  f.configured_backend_us = Opt(j, "configured_backend_us");
  f.backend_min_us = j.value("backend_min_us", 0.0);
  f.backend_p50_us = j.value("backend_p50_us", 0.0);
  f.qemu_timer_slack_us = Opt(j, "qemu_timer_slack_us");
  f.joined_p50_us = j.at("joined_p50_us").get<double>();
  f.histogram_p50_us = j.at("histogram_p50_us").get<double>();
  f.p50_diff_pct = j.at("p50_diff_pct").get<double>();
  f.file = j.at("file").get<std::string>();
  f.file_ios = WholeNumber<uint64_t>(j.at("file_ios"));
  f.file_cap = WholeNumber<uint64_t>(j.at("file_cap"));
  f.complete = j.at("complete").get<bool>();
  f.warnings = j.at("warnings").get<std::vector<std::string>>();
  f.overhead = j.value("overhead", std::string());
}

}  // namespace storbed

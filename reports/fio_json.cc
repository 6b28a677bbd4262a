#include "reports/fio_json.h"

#include <cmath>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "file_read.h"
#include "reports/cells.h"
#include "reports/fio_job_options.h"
#include "reports/fio_latency.h"
#include "strict_json.h"
#include "version.h"

namespace storbed {
namespace {

using ordered_json = nlohmann::ordered_json;

// What every document says it left at zero, and why (docs/fio-json.md says more).
const char* const kNotMeasured[] = {
    "slat_ns: storbed times each IO from just before its submit call to its completion and "
    "does not take the submission apart (zeros)",
    "bw_min, bw_max, bw_agg, bw_mean, bw_dev, bw_samples, iops_min, iops_max, iops_mean, "
    "iops_stddev, iops_samples: fio's per-interval samples of the job's own throughput; "
    "storbed does not log them (zeros)",
    "usr_cpu, sys_cpu, ctx, majf, minf: the agent's own CPU use is not measured (zeros); the "
    "host's CPU over the IO phase is in results.json host.host_cpu",
    "iodepth_level, iodepth_submit, iodepth_complete: fio counts the depth at each "
    "submission; storbed measures the time-weighted in-flight count instead (results.json "
    "result.app_inflight_ns and app_avg_depth), so these are zeros",
    "sync.lat_ns: fsync latencies are not in results.json (zeros); sync.total_ios is the "
    "job's fsync count",
    "disk_util read_ticks and write_ticks: diskstats' read and write ticks are kept summed "
    "(result.block.rw_ms); the sum goes to the one direction that had IOs, both are 0 when "
    "both had"};

const char* const kMapping[] = {
    "clat_ns and lat_ns: storbed's per-IO latency, submit call to completion (fio's lat; "
    "fio's clat leaves out the submission, a few microseconds for asynchronous engines)",
    "clat_ns percentile, bins and stddev, and latency_ns/us/ms: from result.latency_histogram, "
    "each bucket at its middle (buckets under 0.8% wide); min, max, mean and N are exact",
    "iops, bw_bytes: results.json result.iops and mib_s; runtime: result.runtime_s (the IO "
    "phase only); elapsed: the run's wall time in s, rounded up (preparation and guest boot "
    "included)",
    "short_ios, drop_ios: storbed fails a job on a short IO, so a finished run had none",
    "trim: storbed issues no trims",
    "numjobs > 1: storbed reports the threads of a run together, as fio's group_reporting",
    "disk_util: one entry per run, from results.json result.block (the guest's device in a "
    "guest, the loop device on bare metal); in_queue is diskstats field 11's delta"};

const char* const kMixedNote =
    "rw mixed jobs: storbed's latency histogram holds reads and writes together, so their "
    "read and write clat_ns and lat_ns are zeros (the job's latency_ns/us/ms cover both)";

ordered_json ZeroDepths(const std::vector<std::string>& keys) {
  ordered_json o = ordered_json::object();
  for (const auto& k : keys) o[k] = 0.0;
  return o;
}

// One direction's share of a run: how many of its IOs went this way.
struct Share {
  uint64_t ios = 0;
  bool whole = false;  // every IO of the run (a read or write job): its latency applies
};

ordered_json DirectionObject(const JobResult& r, const Share& share) {
  const double part = r.ios > 0 ? double(share.ios) / double(r.ios) : 0.0;
  const uint64_t bytes = share.whole ? r.bytes : FioRound(double(r.bytes) * part);
  const uint64_t bw_bytes = FioRound(r.mib_s * 1048576.0 * part);
  const bool used = share.ios > 0;
  ordered_json d;
  d["io_bytes"] = bytes;
  d["io_kbytes"] = bytes >> 10;
  d["bw_bytes"] = bw_bytes;
  d["bw"] = bw_bytes >> 10;
  d["iops"] = share.whole ? r.iops : r.iops * part;
  d["runtime"] = used ? FioRound(r.runtime_s * 1000.0) : 0;
  d["total_ios"] = share.ios;
  d["short_ios"] = 0;
  d["drop_ios"] = 0;
  d["slat_ns"] = FioZeroLatency();
  if (share.whole && used) {
    d["clat_ns"] = FioLatency(r.latency, r.latency_histogram);
    ordered_json lat = FioLatency(r.latency, {});  // fio's default: percentiles on clat only
    lat["stddev"] = d["clat_ns"]["stddev"];
    d["lat_ns"] = lat;
  } else {
    d["clat_ns"] = FioZeroLatency();
    d["lat_ns"] = FioZeroLatency();
  }
  for (const char* k : {"bw_min", "bw_max"}) d[k] = 0;
  for (const char* k : {"bw_agg", "bw_mean", "bw_dev"}) d[k] = 0.0;
  d["bw_samples"] = 0;
  for (const char* k : {"iops_min", "iops_max"}) d[k] = 0;
  for (const char* k : {"iops_mean", "iops_stddev"}) d[k] = 0.0;
  d["iops_samples"] = 0;
  return d;
}

// {read, write} shares; for a mixed job from its read and write counts, which older
// results lack (then both are empty and `notes` says so).
std::pair<Share, Share> SharesOf(const RunRecord& run, std::vector<std::string>& notes) {
  const JobResult& r = *run.result;
  switch (run.job.rw) {
    case Direction::Read:
      return {{r.ios, true}, {}};
    case Direction::Write:
      return {{}, {r.ios, true}};
    case Direction::Mixed:
      break;
  }
  if (r.reads + r.writes == r.ios) return {{r.reads, false}, {r.writes, false}};
  notes.push_back("this mixed run's reads and writes (" + std::to_string(r.reads) + " + " +
                  std::to_string(r.writes) + ") do not add up to its IOs (" +
                  std::to_string(r.ios) + "): read and write are left at zero");
  return {};
}

std::string JobName(const RunRecord& r) {
  const auto repeat = r.params.find("repeat");
  return CellOf(r) + (repeat != r.params.end() ? " #" + ParamText(*repeat) : " " + r.run_id);
}

ordered_json JobObject(const RunRecord& run, const std::string& name) {
  const JobResult& r = *run.result;
  FioJobOptions options = FioJobOptionsOf(run.job, run.device);
  const auto [read, write] = SharesOf(run, options.notes);
  ordered_json j;
  j["jobname"] = name;
  j["groupid"] = 0;
  j["error"] = 0;
  j["eta"] = 0;
  j["elapsed"] = FioRound(std::ceil(run.wall_s));  // fio rounds its elapsed seconds up
  j["job options"] = options.options;
  j["read"] = DirectionObject(r, read);
  j["write"] = DirectionObject(r, write);
  j["trim"] = DirectionObject(r, {});
  j["sync"] = {{"total_ios", r.fsyncs}, {"lat_ns", FioZeroLatency()}};
  j["job_runtime"] = FioRound(r.runtime_s * 1000.0);
  j["usr_cpu"] = 0.0;
  j["sys_cpu"] = 0.0;
  for (const char* k : {"ctx", "majf", "minf"}) j[k] = 0;
  j["iodepth_level"] = ZeroDepths({"1", "2", "4", "8", "16", "32", ">=64"});
  j["iodepth_submit"] = ZeroDepths({"0", "4", "8", "16", "32", "64", ">=64"});
  j["iodepth_complete"] = ZeroDepths({"0", "4", "8", "16", "32", "64", ">=64"});
  const FioLatencyBuckets buckets = FioLatencyBucketsOf(r.latency_histogram);
  j["latency_ns"] = buckets.ns;
  j["latency_us"] = buckets.us;
  j["latency_ms"] = buckets.ms;
  j["latency_depth"] = run.job.iodepth;
  j["latency_target"] = 0;
  j["latency_percentile"] = 100.0;
  j["latency_window"] = 0;
  if (r.latency_histogram.empty())
    options.notes.push_back(
        "no latency histogram in this record (results from before it): "
        "no clat_ns percentile or bins, stddev and latency_ns/us/ms zeros");
  j["storbed"] = {{"run_id", run.run_id}, {"target", run.target},       {"accel", run.accel},
                  {"device", run.device}, {"host_name", run.host_name}, {"notes", options.notes}};
  return j;
}

// fio's disk_util entry for the run's diskstats delta; null when the run has none.
ordered_json DiskUtil(const RunRecord& run, const std::string& name) {
  const BlockStats& b = run.result->block;
  if (!b.available) return nullptr;
  const uint64_t in_queue = FioRound(b.avg_queue_depth * b.interval_s * 1000.0);
  return {{"name", b.device},
          {"read_ios", b.reads},
          {"write_ios", b.writes},
          {"read_merges", b.read_merges},
          {"write_merges", b.write_merges},
          {"read_ticks", b.writes == 0 ? b.rw_ms : 0},
          {"write_ticks", b.reads == 0 ? b.rw_ms : 0},
          {"in_queue", in_queue},
          {"util", b.utilization * 100.0},
          {"storbed_job", name},
          {"storbed_layer", b.layer}};
}

// The options every job has with the same value (fio's [global] section); name and
// filename are each job's own.
ordered_json GlobalOptions(const ordered_json& jobs) {
  ordered_json global = ordered_json::object();
  if (jobs.empty()) return global;
  for (const auto& [key, value] : jobs[0]["job options"].items()) {
    if (key == "name" || key == "filename") continue;
    bool everywhere = true;
    for (const auto& job : jobs) {
      const auto& o = job["job options"];
      everywhere = everywhere && o.contains(key) && o[key] == value;
    }
    if (everywhere) global[key] = value;
  }
  return global;
}

// manifest.json's started_at ("2024-05-01T10:00:00Z") as seconds since the epoch; -1
// when absent or not in that form.
int64_t StartedAt(const nlohmann::json& manifest, std::string* time_text) {
  const auto it = manifest.find("started_at");
  if (it == manifest.end() || !it->is_string()) return -1;
  std::tm tm{};
  std::istringstream in(it->get<std::string>());
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return -1;
  const time_t t = timegm(&tm);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y", &tm);  // fio's ctime() form
  *time_text = text;
  return int64_t(t);
}

std::string ScenarioFile(const nlohmann::json& manifest) {
  const auto it = manifest.find("scenario_file");
  return it != manifest.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

ordered_json FioJsonDocument(const std::vector<RunRecord>& records,
                             const nlohmann::json& manifest) {
  ordered_json jobs = ordered_json::array(), disk_util = ordered_json::array();
  ordered_json left_out = ordered_json::array();
  bool mixed = false;
  for (const RunRecord& run : ReportedRuns(records)) {
    if (run.status != RunStatus::Ok || !run.result) {
      left_out.push_back(
          {{"run_id", run.run_id}, {"status", ToString(run.status)}, {"error", run.error}});
      continue;
    }
    const std::string name = JobName(run);
    jobs.push_back(JobObject(run, name));
    if (ordered_json util = DiskUtil(run, name); !util.is_null()) disk_util.push_back(util);
    mixed = mixed || run.job.rw == Direction::Mixed;
  }
  const nlohmann::json host = manifest.value("host", nlohmann::json::object());
  const std::string version =
      host.is_object() && host.contains("storbed_version") && host["storbed_version"].is_string()
          ? host["storbed_version"].get<std::string>()
          : std::string(kStorbedVersion);
  std::string time_text;
  const int64_t started = StartedAt(manifest, &time_text);
  std::vector<std::string> not_measured(std::begin(kNotMeasured), std::end(kNotMeasured));
  if (started < 0)
    not_measured.push_back("timestamp, timestamp_ms, time: manifest.json has no started_at");
  std::vector<std::string> mapping(std::begin(kMapping), std::end(kMapping));
  if (mixed) mapping.push_back(kMixedNote);

  ordered_json doc;
  doc["fio version"] = "storbed-" + version;
  doc["timestamp"] = started < 0 ? 0 : started;
  doc["timestamp_ms"] = started < 0 ? 0 : started * 1000;
  doc["time"] = time_text;
  doc["global options"] = GlobalOptions(jobs);
  doc["jobs"] = jobs;
  doc["disk_util"] = disk_util;
  doc["storbed"] = {{"format", "fio-json (fio --output-format=json+ schema)"},
                    {"storbed_version", version},
                    {"scenario_file", ScenarioFile(manifest)},
                    {"runs_left_out", left_out},
                    {"not_measured", not_measured},
                    {"mapping", mapping}};
  return doc;
}

std::string RenderFioJson(const ReportInput& input) {
  nlohmann::json manifest = nlohmann::json::object();
  const std::string path = input.dir + "/manifest.json";
  std::error_code ec;
  if (!input.dir.empty() && std::filesystem::exists(path, ec)) {
    try {
      manifest = ParseJson(ReadFileOrThrow(path));
    } catch (const std::exception& e) {
      throw std::invalid_argument(path + ": not JSON: " + WithoutJsonTag(e.what()));
    }
    if (!manifest.is_object()) throw std::invalid_argument(path + ": not a JSON object");
  }
  return FioJsonDocument(input.records, manifest).dump(2) + "\n";
}

}  // namespace storbed

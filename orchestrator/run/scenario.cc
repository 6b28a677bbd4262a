#include "run/scenario.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "run/scenario_fields.h"

namespace storbed {
namespace {

using nlohmann::json;

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

class Validator {
 public:
  explicit Validator(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& reason) const {
    throw ScenarioError(path_ + ": " + field + ": " + reason);
  }

  // Checks `in` against the section's fields; returns it with defaults filled in.
  json Section(const json& in, const std::string& section, const std::string& where) const {
    if (!in.is_object()) Fail(where.empty() ? section : where, "must be a JSON object");
    const auto fields = FieldsOf(section);
    std::vector<std::string> known;
    for (const auto* f : fields) known.push_back(f->name);
    for (const auto& [key, value] : in.items()) {
      if (section == "scenario" && (key == "machine" || key == "disk" || key == "jobs")) continue;
      if (std::find(known.begin(), known.end(), key) == known.end())
        Fail(Qualified(where, key), "unknown field (known: " + Join(known) + ")");
    }
    json out = json::object();
    for (const auto* f : fields) {
      const std::string name = Qualified(where, f->name);
      if (!in.contains(f->name)) {
        if (f->default_json.empty()) Fail(name, "required field is missing");
        out[f->name] = Normalize(*f, json::parse(f->default_json), name);
      } else {
        out[f->name] = Normalize(*f, in.at(f->name), name);
      }
    }
    return out;
  }

 private:
  static std::string Qualified(const std::string& where, const std::string& key) {
    return where.empty() ? key : where + "." + key;
  }

  void CheckRange(const FieldSpec& f, double v, const std::string& name) const {
    if (v < f.min || v > f.max) {
      std::string msg = "value " + FormatFieldValue(f, v) + " is out of range [" + FormatFieldValue(f, f.min) + ", " +
                        FormatFieldValue(f, f.max) + "]";
      if (!f.unit.empty() && f.type != FieldType::Size) msg += " " + f.unit;
      Fail(name, msg);
    }
  }

  json Normalize(const FieldSpec& f, const json& v, const std::string& name) const {
    switch (f.type) {
      case FieldType::Integer: {
        if (!v.is_number_integer() || (v.is_number_integer() && v.get<int64_t>() < 0 && f.min >= 0))
          Fail(name, "expected a non-negative integer, got " + v.dump());
        CheckRange(f, double(v.get<int64_t>()), name);
        return v;
      }
      case FieldType::Size: {
        uint64_t bytes = 0;
        try {
          bytes = ParseSize(v);
        } catch (const std::invalid_argument& e) {
          Fail(name, e.what());
        }
        CheckRange(f, double(bytes), name);
        return bytes;
      }
      case FieldType::Number: {
        if (!v.is_number()) Fail(name, "expected a number, got " + v.dump());
        CheckRange(f, v.get<double>(), name);
        return v;
      }
      case FieldType::Bool:
        if (!v.is_boolean()) Fail(name, "expected true or false, got " + v.dump());
        return v;
      case FieldType::String:
        if (!v.is_string()) Fail(name, "expected a string, got " + v.dump());
        if (f.default_json.empty() && v.get<std::string>().empty())
          Fail(name, "must not be empty");
        return v;
      case FieldType::Enum: {
        if (!v.is_string() || std::find(f.allowed.begin(), f.allowed.end(),
                                        v.get<std::string>()) == f.allowed.end())
          Fail(name, "expected one of " + Join(f.allowed) + ", got " + v.dump());
        return v;
      }
      case FieldType::TargetList: {
        if (!v.is_array() || v.empty()) Fail(name, "expected a non-empty list of targets");
        std::set<std::string> seen;
        for (const auto& item : v) {
          if (!item.is_string() || std::find(f.allowed.begin(), f.allowed.end(),
                                             item.get<std::string>()) == f.allowed.end())
            Fail(name, "expected targets from " + Join(f.allowed) + ", got " + item.dump());
          if (!seen.insert(item.get<std::string>()).second)
            Fail(name, "target " + item.dump() + " is listed twice");
        }
        return v;
      }
    }
    return v;
  }

  std::string path_;
};

TargetKind ParseTarget(const std::string& s) {
  if (s == "virtio-blk") return TargetKind::VirtioBlk;
  if (s == "nvme") return TargetKind::Nvme;
  return TargetKind::BareMetal;
}

}  // namespace

std::string ToString(TargetKind t) {
  switch (t) {
    case TargetKind::VirtioBlk: return "virtio-blk";
    case TargetKind::Nvme: return "nvme";
    case TargetKind::BareMetal: return "bare-metal";
  }
  return "?";
}

uint64_t ParseSize(const json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) {
    if (value.get<int64_t>() < 0) throw std::invalid_argument("a size cannot be negative");
    return value.get<uint64_t>();
  }
  if (!value.is_string())
    throw std::invalid_argument("expected a size like 4096, \"4k\" or \"64m\", got " +
                                value.dump());
  const std::string s = value.get<std::string>();
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 15)
    throw std::invalid_argument("expected a size like 4096, \"4k\" or \"64m\", got \"" + s + "\"");
  uint64_t n = std::stoull(s.substr(0, i));
  std::string suffix = s.substr(i);
  for (auto& c : suffix) c = std::tolower(static_cast<unsigned char>(c));
  static const std::pair<const char*, int> kSuffixes[] = {
      {"", 0},    {"b", 0},    {"k", 10},   {"kb", 10},  {"kib", 10}, {"m", 20}, {"mb", 20},
      {"mib", 20}, {"g", 30},  {"gb", 30},  {"gib", 30}, {"t", 40},   {"tb", 40}, {"tib", 40}};
  for (const auto& [name, shift] : kSuffixes)
    if (suffix == name) return n << shift;
  throw std::invalid_argument("unknown size suffix '" + suffix +
                              "' in \"" + s + "\" (use k, m, g or t; powers of 1024)");
}

Scenario ParseScenario(const std::string& text, const std::string& path) {
  Validator check(path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ScenarioError(path + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object()) check.Fail("(top level)", "must be a JSON object");

  Scenario s;
  s.path = path;
  const json top = check.Section(doc, "scenario", "");
  const json machine = check.Section(doc.value("machine", json::object()), "machine", "machine");
  const json disk = check.Section(doc.value("disk", json::object()), "disk", "disk");
  if (!doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    check.Fail("jobs", "required: a non-empty list of job objects");

  s.name = top["name"];
  s.description = top["description"];
  for (const auto& t : top["targets"]) s.targets.push_back(ParseTarget(t.get<std::string>()));

  s.machine.vcpus = machine["vcpus"];
  s.machine.memory_bytes = machine["memory"];
  s.machine.kernel = machine["kernel"];
  s.machine.modules_dir = machine["modules_dir"];
  s.machine.accel = machine["accel"];
  s.machine.boot_timeout_s = machine["boot_timeout"];
  s.machine.sample_period_ms = machine["sample_period_ms"];

  s.disk.size_bytes = disk["size"];
  s.disk.backing = disk["backing"];
  s.disk.num_queues = disk["num_queues"];
  s.disk.queue_size = disk["queue_size"];
  if ((s.disk.queue_size & (s.disk.queue_size - 1)) != 0)
    check.Fail("disk.queue_size", "must be a power of two, got " + std::to_string(s.disk.queue_size));
  s.disk.iothread = disk["iothread"];
  s.disk.aio = ParseAio(disk["aio"]);
  s.disk.cache = ParseCacheMode(disk["cache"]);
  if (s.disk.aio == Aio::Native && s.disk.cache != CacheMode::None)
    check.Fail("disk.aio", "\"native\" needs cache \"none\" (QEMU requires O_DIRECT for it)");
  s.disk.request_merging = disk["request_merging"];
  s.disk.no_flush = disk["no_flush"];

  json expanded_jobs = json::array();
  std::set<std::string> names;
  for (size_t i = 0; i < doc["jobs"].size(); ++i) {
    const std::string where = "jobs[" + std::to_string(i) + "]";
    const json j = check.Section(doc["jobs"][i], "job", where);
    JobSpec spec;
    spec.name = j["name"];
    if (!names.insert(spec.name).second)
      check.Fail(where + ".name", "job name \"" + spec.name + "\" is used twice");
    spec.pattern = ParsePattern(j["pattern"]);
    spec.rw = ParseDirection(j["rw"]);
    spec.engine = ParseEngine(j["ioengine"]);
    spec.bs = j["bs"];
    if (spec.bs % 512 != 0)
      check.Fail(where + ".bs", "must be a multiple of 512, got " + std::to_string(spec.bs));
    spec.iodepth = j["iodepth"];
    spec.size = j["size"];
    spec.io_limit = j["io_size"];
    spec.runtime_s = j["runtime"];
    spec.direct = j["direct"];
    spec.cache = j["invalidate"].get<bool>() ? CacheState::Cold : CacheState::Keep;
    spec.gappy_read = j["gappy_read"];
    spec.gappy_skip = j["gappy_skip"];
    spec.seed = j["seed"];
    spec.fsync_every = j["fsync"];
    spec.end_fsync = j["end_fsync"];
    spec.inflight_sample_ms = j["inflight_sample_ms"];
    spec.stats_sample_ms = j["stats_sample_ms"];
    if ((spec.fsync_every || spec.end_fsync) && spec.rw != Direction::Write)
      check.Fail(where + ".fsync", "fsync and end_fsync apply to write jobs only (rw is \"" +
                                       ToString(spec.rw) + "\")");
    if (spec.size != 0 && spec.size > s.disk.size_bytes && s.disk.backing.empty())
      check.Fail(where + ".size", "job region (" + std::to_string(spec.size) +
                                      " bytes) is larger than disk.size (" +
                                      std::to_string(s.disk.size_bytes) + " bytes)");
    if (spec.bs > (spec.size ? spec.size : s.disk.size_bytes))
      check.Fail(where + ".bs", "block size is larger than the job's region");
    s.jobs.push_back(spec);
    expanded_jobs.push_back(j);
  }
  s.expanded = top;
  s.expanded["machine"] = machine;
  s.expanded["disk"] = disk;
  s.expanded["jobs"] = expanded_jobs;
  return s;
}

Scenario LoadScenario(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path + ": cannot open the scenario file: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return ParseScenario(text.str(), path);
}

}  // namespace storbed

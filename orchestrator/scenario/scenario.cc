#include "scenario/scenario.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "backend/disk_driver.h"
#include "images/filesystem_image.h"
#include "input_file.h"
#include "passthrough/pci_sysfs.h"
#include "quoted_value.h"
#include "scenario/name_rule.h"
#include "scenario/scenario_fields.h"
#include "scenario/scenario_validate.h"
#include "strict_json.h"

namespace storbed {
namespace {

using nlohmann::json;

}  // namespace

uint64_t DiskConfig::image_bytes() const {
  if (filesystem.empty()) return size_bytes;
  return std::max(size_bytes, MinimumImageBytes(filesystem, fs_file_bytes));
}

uint64_t ParseSize(const json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) {
    if (value.get<int64_t>() < 0) throw std::invalid_argument("a size cannot be negative");
    return value.get<uint64_t>();
  }
  if (!value.is_string())
    throw std::invalid_argument("expected a size like 4096, \"4k\" or \"64m\", got " +
                                QuoteJson(value));
  const std::string s = value.get<std::string>();
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 15)
    throw std::invalid_argument("expected a size like 4096, \"4k\" or \"64m\", got " +
                                QuoteValue(s));
  uint64_t n = std::stoull(s.substr(0, i));
  std::string suffix = s.substr(i);
  for (auto& c : suffix) c = std::tolower(static_cast<unsigned char>(c));
  static const std::pair<const char*, int> kSuffixes[] = {
      {"", 0},    {"b", 0},    {"k", 10},   {"kb", 10},  {"kib", 10}, {"m", 20}, {"mb", 20},
      {"mib", 20}, {"g", 30},  {"gb", 30},  {"gib", 30}, {"t", 40},   {"tb", 40}, {"tib", 40}};
  for (const auto& [name, shift] : kSuffixes) {
    if (suffix != name) continue;
    // "16777217t" shifted past 2^64 used to wrap to 1t and be accepted as that.
    if (n > (UINT64_MAX >> shift))
      throw std::invalid_argument(QuoteValue(s) + " is more than 2^64 bytes");
    return n << shift;
  }
  // A short suffix is named (escaped: a NUL in it once ended the message); a long one is
  // in the quoted prefix of the value.
  const std::string quoted = QuoteValue(suffix);
  const std::string named =
      suffix.size() <= 8 ? "'" + quoted.substr(1, quoted.size() - 2) + "' " : "";
  throw std::invalid_argument("unknown size suffix " + named + "in " + QuoteValue(s) +
                              " (use k, m, g or t; powers of 1024)");
}

namespace {

// disk.passthrough: a PCI address, and the device is the whole disk: nothing storbed
// makes or names may sit beside it.
void CheckPassthroughDisk(const Validator& check, const DiskConfig& d) {
  if (d.passthrough.empty()) return;
  const std::string field = FieldName(&DiskConfig::passthrough);
  if (const std::string why = PciAddressProblem(d.passthrough); !why.empty()) check.Fail(field, why);
  const std::string device = "the guest gets PCI device " + d.passthrough + " itself";
  if (!d.backing.empty())
    check.Fail(field, device + ": it cannot use " + FieldName(&DiskConfig::backing) + " (" +
                          d.backing + ") too");
  if (!DriverHasStorage(d.driver))
    check.Fail(field, device + ": driver \"" + d.driver + "\" does not apply");
  if (d.format != "raw") check.Fail(field, device + ": format \"" + d.format + "\" does not apply");
  if (!d.filesystem.empty())
    check.Fail(field, device + ": storbed makes no " + d.filesystem + " image for it");
}

// The backing kind: format, driver, filesystem and a named device, with the rules that
// tie them together. `given` is the disk section as written.
void BuildDiskKind(const Validator& check, const json& given, DiskConfig& d) {
  // A field that only applies with another one is fine in a matrix over that other one.
  auto key = [](auto member) { return RowOf(DiskRows(), member).spec.name; };
  auto listed = [&](auto member) {
    return given.contains(key(member)) && given[key(member)].is_array();
  };
  const std::string backing = FieldName(&DiskConfig::backing);
  const bool null_co = !DriverHasStorage(d.driver);
  if (null_co && !d.backing.empty())
    check.Fail(FieldName(&DiskConfig::driver), "\"null-co\" has no storage: it cannot use " +
                                                     backing + " (" + d.backing + ")");
  if (null_co && d.format != "raw")
    check.Fail(FieldName(&DiskConfig::format),
               "\"" + d.format + "\" needs an image; driver \"null-co\" has none");
  if (null_co && !d.filesystem.empty())
    check.Fail(FieldName(&DiskConfig::filesystem),
               "\"" + d.filesystem + "\" needs an image; driver \"null-co\" has none");
  if (!null_co && given.contains(key(&DiskConfig::null_latency_ns)) && !listed(&DiskConfig::driver))
    check.Fail(FieldName(&DiskConfig::null_latency_ns), "applies to driver \"null-co\" only (driver is \"" +
                                        d.driver + "\")");
  if (!d.backing.empty() && d.format != "raw")
    check.Fail(FieldName(&DiskConfig::format), "\"" + d.format +
                                                   "\" applies to the backing storbed creates, "
                                                   "not to " + backing + " (" + d.backing + ")");
  if (!d.backing.empty() && !d.filesystem.empty())
    check.Fail(FieldName(&DiskConfig::filesystem),
               "storbed makes the filesystem image itself: it cannot use " + backing + " (" +
                   d.backing + ")");
  CheckPassthroughDisk(check, d);
  if (d.allow_writes && d.backing.rfind("/dev/", 0) != 0 && d.passthrough.empty())
    check.Fail(FieldName(&DiskConfig::allow_writes),
               "applies to a block device named in " + backing + " only");
  if (d.filesystem.empty()) {
    if (given.contains(key(&DiskConfig::fs_file_bytes)) && !listed(&DiskConfig::filesystem))
      check.Fail(FieldName(&DiskConfig::fs_file_bytes), "applies to filesystem \"ext4\" or \"xfs\" only");
    return;
  }
  if (d.fs_file_bytes == 0) d.fs_file_bytes = d.size_bytes / 4 * 3 / 4096 * 4096;
  if (d.fs_file_bytes > d.size_bytes)
    check.Fail(FieldName(&DiskConfig::fs_file_bytes), "the test file (" + std::to_string(d.fs_file_bytes) +
                                        " bytes) is larger than disk.size (" +
                                        std::to_string(d.size_bytes) + " bytes)");
  if (d.fs_file_bytes % 4096 != 0)
    check.Fail(FieldName(&DiskConfig::fs_file_bytes), "must be a multiple of 4k, got " +
                                        std::to_string(d.fs_file_bytes));
}

MachineVariant BuildMachine(const Validator& check, const Combination& m,
                            const Combination& d, const json& given) {
  const json& machine = m.values;
  const json& disk = d.values;
  MachineVariant v;
  for (const auto& row : MachineRows()) row.set(v.machine, machine[row.spec.name]);
  for (const auto& row : DiskRows()) row.set(v.disk, disk[row.spec.name]);
  if (v.machine.tunables.nr_requests == 0)
    check.Fail(FieldName(&MachineConfig::tunables, &BlockTunables::nr_requests),
               "must be at least 1, or -1 to leave it");
  if (v.machine.tunables.max_sectors_kb == 0)
    check.Fail(FieldName(&MachineConfig::tunables, &BlockTunables::max_sectors_kb),
               "must be at least 1, or -1 to leave it");
  if (const std::string why = SchedulerNameProblem(v.machine.tunables.scheduler); !why.empty())
    check.Fail(FieldName(&MachineConfig::tunables, &BlockTunables::scheduler), why);
  if ((v.disk.queue_size & (v.disk.queue_size - 1)) != 0)
    check.Fail(FieldName(&DiskConfig::queue_size),
               "must be a power of two, got " + std::to_string(v.disk.queue_size));
  if (v.disk.aio == Aio::Native && v.disk.cache != CacheMode::None)
    check.Fail(FieldName(&DiskConfig::aio),
               "\"native\" needs cache \"none\" (QEMU requires O_DIRECT for it)");
  BuildDiskKind(check, given, v.disk);
  v.params = m.params;
  v.params.update(d.params);
  for (const auto& [k, value] : machine.items()) v.values["machine." + k] = value;
  for (const auto& [k, value] : disk.items()) v.values["disk." + k] = value;
  return v;
}

// An exclude rule that names only fields of these sections can drop a partial
// combination before it is validated (so a matrix may list a pair that cannot work).
bool ExcludedEarly(const std::vector<ExcludeRule>& rules, const json& values,
                   const std::vector<std::string>& sections) {
  for (const auto& rule : rules) {
    bool only_these = true;
    for (const auto& [key, value] : rule) {
      const std::string section = key.substr(0, key.find('.'));
      only_these &= std::find(sections.begin(), sections.end(), section) != sections.end();
    }
    if (only_these && Matches(rule, values)) return true;
  }
  return false;
}

// The number of runs the matrix expands to, counted from the list lengths before a
// single combination is made: a matrix of millions would exhaust memory first.
// Exclusions only lower it, so the count is an upper bound.
void CheckMatrixSize(const Validator& check, const json& top, const json& machine,
                     const json& disk, const json& jobs, uint64_t max_runs) {
  auto combinations = [](const json& section) {
    double n = 1;
    for (const auto& [key, value] : section.items())
      if (value.is_array()) n *= double(value.size());
    return n;
  };
  double job_cases = 0;
  for (const auto& j : jobs)
    if (j.is_object()) job_cases += combinations(j);
  const double rounds = top["repeats"].get<double>() + top["warmup"].get<double>();
  const double runs = combinations(machine) * combinations(disk) * job_cases *
                      double(top["targets"].size()) * rounds;
  if (runs > double(max_runs)) {
    char count[32];
    std::snprintf(count, sizeof count, "%.0f", runs);
    check.Fail("(matrix)", std::string("expands to ") + count + " runs, more than the limit of " +
                               std::to_string(max_runs) +
                               "; narrow the lists, or raise the limit with --max-runs");
  }
}

// A job's region and block size fit every machine's disk, and it writes to a named block
// device only when the scenario allows it.
void CheckJobFitsDisks(const Validator& check, const JobSpec& spec,
                       const std::vector<MachineVariant>& machines, const std::string& where) {
  for (const auto& m : machines) {
    const bool on_file = !m.disk.filesystem.empty();
    const uint64_t room = on_file ? m.disk.fs_file_bytes : m.disk.size_bytes;
    if (spec.size != 0 && spec.size > room && m.disk.backing.empty() &&
        m.disk.passthrough.empty())
      check.Fail(where + ".size", "job region (" + std::to_string(spec.size) +
                                      " bytes) is larger than " +
                                      (on_file ? "disk.fs_file_size (" : "disk.size (") +
                                      std::to_string(room) + " bytes)");
    if (spec.bs > (spec.size ? spec.size : room))
      check.Fail(where + ".bs", "block size is larger than the job's region");
    // The agent gives each thread a bs-aligned slice; a region it cannot cut would fail
    // only inside the guest, after the boot.
    const uint64_t region = spec.size ? spec.size : room > spec.offset ? room - spec.offset : 0;
    if (spec.numjobs_split && spec.numjobs > 1 && (spec.size || m.disk.backing.empty()) &&
        region / spec.numjobs / spec.bs == 0)
      check.Fail(where + ".numjobs_split",
                 "the region of " + std::to_string(region) + " bytes cannot be split into "
                 "numjobs=" + std::to_string(spec.numjobs) + " slices of at least bs=" +
                 std::to_string(spec.bs) + " bytes");
    if (spec.trace && on_file)
      check.Fail(where + ".trace", "the job runs on a file in disk.filesystem \"" +
                                       m.disk.filesystem + "\", whose own requests (journal, "
                                       "metadata) the trace cannot tell from the job's; trace "
                                       "needs disk.filesystem \"none\"");
    if (spec.rw != Direction::Read && !m.disk.passthrough.empty() && !m.disk.allow_writes)
      check.Fail(where + ".rw", "\"" + ToString(spec.rw) + "\" would overwrite the NVMe "
                                "device " + m.disk.passthrough + " named in disk.passthrough; "
                                "set disk.allow_writes true if that is meant");
    if (spec.rw != Direction::Read && m.disk.backing.rfind("/dev/", 0) == 0 &&
        !m.disk.allow_writes)
      check.Fail(where + ".rw", "\"" + ToString(spec.rw) + "\" would overwrite the block "
                                "device " + m.disk.backing + " named in disk.backing; set "
                                "disk.allow_writes true if that is meant");
  }
}

// disk.passthrough: the guest target is the device on nvme; bare metal runs on its
// namespace before the device is handed over, so it must come first in a sequential order.
void CheckPassthroughTargets(const Validator& check, const Scenario& s) {
  if (s.disk.passthrough.empty()) return;
  const std::string field = FieldName(&DiskConfig::passthrough);
  for (const TargetKind t : s.targets)
    if (t != TargetKind::BareMetal && t.bus != Bus::Nvme)
      check.Fail("targets", "\"" + ToString(t) + "\" cannot hold " + field + " (" +
                                s.disk.passthrough +
                                "): the device is an NVMe controller; use targets nvme and "
                                "bare-metal");
  if (s.targets.size() > 1 && s.targets.front() != TargetKind::BareMetal)
    check.Fail("targets", "with " + field + ", list \"bare-metal\" first: it runs on the "
                          "device's namespace before the device is handed to the guest");
  if (s.order != RunOrder::Sequential)
    check.Fail("order", "with " + field + ", only \"sequential\": bare metal runs on the "
                        "device before the guest gets it");
}

// null-co has no storage: a bare-metal run on it must be excluded.
void CheckBareMetalHasStorage(const Validator& check, const Scenario& s) {
  for (const auto& m : s.machines) {
    if (DriverHasStorage(m.disk.driver)) continue;
    json values = m.values;
    values["target"] = "bare-metal";
    const bool excluded = std::any_of(s.exclude.begin(), s.exclude.end(),
                                      [&](const ExcludeRule& r) { return Matches(r, values); });
    if (!excluded &&
        std::find(s.targets.begin(), s.targets.end(), TargetKind::BareMetal) != s.targets.end())
      check.Fail("disk.driver", "\"null-co\" has no storage for the bare-metal target: drop "
                                "\"bare-metal\" from targets, or exclude {\"target\": "
                                "\"bare-metal\", \"disk.driver\": \"null-co\"}");
  }
}

}  // namespace

Scenario ScenarioFromJson(const json& doc, const std::string& path, uint64_t max_runs) {
  Validator check(path);
  if (!doc.is_object()) check.Fail("(top level)", "must be a JSON object");

  Scenario s;
  s.path = path;
  const json top = check.Section(doc, "scenario", "");
  const json machine = check.Section(doc.value("machine", json::object()), "machine", "machine");
  const json disk = check.Section(doc.value("disk", json::object()), "disk", "disk");
  if (!doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    check.Fail("jobs", "required: a non-empty list of job objects");

  s.name = top["name"];
  if (const std::string why = NameProblem(s.name); !why.empty()) check.Fail("name", why);
  CheckMatrixSize(check, top, machine, disk, doc["jobs"], max_runs);
  s.description = top["description"];
  for (const auto& t : top["targets"])
    s.targets.push_back(FindTarget(t).value_or(TargetKind::BareMetal));
  for (size_t i = 0; i < top["matrix_exclude"].size(); ++i)
    s.exclude.push_back(ParseExcludeRule(check, top["matrix_exclude"][i],
                                         "matrix_exclude[" + std::to_string(i) + "]"));
  s.repeats = top["repeats"];
  s.warmup = top["warmup"];
  for (const RunOrder order : {RunOrder::Random, RunOrder::Interleaved})
    if (top["order"] == ToString(order)) s.order = order;
  s.order_seed = top["order_seed"];
  if (top["reboot"] == "per_machine") s.reboot = Reboot::PerMachine;

  for (const auto& m : Product(machine, "machine")) {
    for (const auto& d : Product(disk, "disk")) {
      json values = json::object();
      for (const auto& [k, value] : m.values.items()) values["machine." + k] = value;
      for (const auto& [k, value] : d.values.items()) values["disk." + k] = value;
      if (ExcludedEarly(s.exclude, values, {"machine", "disk"})) continue;
      s.machines.push_back(BuildMachine(check, m, d, doc.value("disk", json::object())));
    }
  }
  if (s.machines.empty())
    check.Fail("matrix_exclude", "drops every machine and disk combination");
  s.machine = s.machines[0].machine;
  s.disk = s.machines[0].disk;
  CheckBareMetalHasStorage(check, s);
  CheckPassthroughTargets(check, s);

  json expanded_jobs = json::array();
  std::set<std::string> names;
  for (size_t i = 0; i < doc["jobs"].size(); ++i) {
    const std::string where = "jobs[" + std::to_string(i) + "]";
    const json j = check.Section(doc["jobs"][i], "job", where);
    const std::string name = j["name"];
    if (const std::string why = NameProblem(name); !why.empty()) check.Fail(where + ".name", why);
    if (!names.insert(name).second)
      check.Fail(where + ".name", "job name \"" + name + "\" is used twice");
    for (const auto& combination : Product(j, "job")) {
      JobCase c;
      for (const auto& [k, value] : combination.values.items()) c.values["job." + k] = value;
      if (ExcludedEarly(s.exclude, c.values, {"job"})) continue;
      c.job = BuildJob(check, combination.values, doc["jobs"][i], where);
      c.params = combination.params;
      CheckJobFitsDisks(check, c.job, s.machines, where);
      s.jobs.push_back(c.job);
      s.job_cases.push_back(std::move(c));
    }
    expanded_jobs.push_back(j);
  }
  if (s.job_cases.empty()) check.Fail("matrix_exclude", "drops every job combination");
  s.expanded = top;
  s.expanded["machine"] = machine;
  s.expanded["disk"] = disk;
  s.expanded["jobs"] = expanded_jobs;
  return s;
}

std::string ToString(RunOrder order) {
  switch (order) {
    case RunOrder::Random: return "random";
    case RunOrder::Interleaved: return "interleaved";
    case RunOrder::Sequential: break;
  }
  return "sequential";
}

namespace {

json ParseScenarioDocument(const std::string& text, const std::string& path) {
  try {
    return ParseJsonNoDuplicateKeys(text);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(path + ": " + e.what());
  }
}

}  // namespace

Scenario ParseScenario(const std::string& text, const std::string& path, uint64_t max_runs) {
  return ScenarioFromJson(ParseScenarioDocument(text, path), path, max_runs);
}

json LoadScenarioDocument(const std::string& path) {
  std::string text;
  try {
    text = ReadInputFile(path, "scenario file");
  } catch (const InputFileError& e) {
    throw ScenarioError(e.what());
  }
  return ParseScenarioDocument(text, path);
}

Scenario LoadScenario(const std::string& path, uint64_t max_runs) {
  return ScenarioFromJson(LoadScenarioDocument(path), path, max_runs);
}

}  // namespace storbed

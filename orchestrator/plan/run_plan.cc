#include "plan/run_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <sstream>

#include "backend/disk_driver.h"
#include "scenario/scenario_fields.h"

namespace storbed {
namespace {

using nlohmann::json;

const FieldSpec* FieldNamed(const std::string& qualified) {
  for (const auto& f : ScenarioFields())
    if (f.section + "." + f.name == qualified) return &f;
  return nullptr;
}

// "bs64k", "aio-native", "iothread1", "kernel-vmlinuz-6.1.0-13-amd64".
std::string IdPart(const std::string& key, const json& value) {
  const FieldSpec* f = FieldNamed(key);
  const std::string name = key.substr(key.find('.') + 1);
  std::string text;
  if (value.is_boolean()) {
    text = value.get<bool>() ? "1" : "0";
  } else if (value.is_number() && f) {
    text = FormatFieldValue(*f, value.get<double>());
  } else if (value.is_string()) {
    std::string s = value.get<std::string>();
    s = s.substr(s.find_last_of('/') == std::string::npos ? 0 : s.find_last_of('/') + 1);
    text = "-" + (s.empty() ? std::string("none") : s);
  } else {
    text = value.dump();
  }
  std::string out = name + text;
  for (auto& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return out;
}

// Fisher-Yates with the generator's raw output, so an order_seed gives the same order
// with every standard library (std::shuffle's use of the generator is unspecified).
template <typename T>
void Shuffle(std::vector<T>& items, std::mt19937_64& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng() % i]);
}

struct Pending {
  PlannedRun run;
  std::string base;  // the id without its number
};

// The job as it runs on this machine's disk: on the filesystem's test file, and (in a
// guest) with the machine's queue tunables where the job leaves them as they are.
JobSpec JobOnMachine(JobSpec job, const MachineVariant& mv, TargetKind target) {
  job.filesystem = mv.disk.filesystem;
  if (target == TargetKind::BareMetal) return job;
  BlockTunables& t = job.tunables;
  const BlockTunables& m = mv.machine.tunables;
  if (t.read_ahead_kb < 0) t.read_ahead_kb = m.read_ahead_kb;
  if (t.scheduler.empty()) t.scheduler = m.scheduler;
  if (t.nr_requests < 0) t.nr_requests = m.nr_requests;
  if (t.max_sectors_kb < 0) t.max_sectors_kb = m.max_sectors_kb;
  return job;
}

bool Excluded(const Scenario& s, const json& values) {
  for (const auto& rule : s.exclude)
    if (Matches(rule, values)) return true;
  return false;
}

}  // namespace

namespace {

// Bare metal has no machine: only the backing (and the filesystem on it) tells two
// combinations apart. False for a backing already seen (or none, null-co); else the
// parameters and values that name this one.
bool BareMetalBacking(const MachineVariant& mv, std::vector<std::string>& seen,
                      json& machine_params, json& bare_values) {
  // null-co has no storage; validation made sure the scenario excludes this pair.
  if (!DriverHasStorage(mv.disk.driver)) return false;
  static const char* const kBareKeys[] = {"disk.size", "disk.backing", "disk.filesystem",
                                          "disk.fs_file_size"};
  std::string key;
  for (const char* k : kBareKeys) key += mv.values[k].dump();
  if (std::find(seen.begin(), seen.end(), key) != seen.end()) return false;
  seen.push_back(key);
  machine_params = json::object();
  for (const char* k : kBareKeys)
    if (mv.params.contains(k)) machine_params[k] = mv.params[k];
  for (const char* k : {"disk.filesystem", "disk.fs_file_size"}) bare_values[k] = mv.values[k];
  return true;
}

// Each combination of machine `m` on `target`: its job case and its parameters.
std::vector<Pending> Combos(const Scenario& s, size_t m, TargetKind target,
                            const json& machine_params, const json& bare_values) {
  const MachineVariant& mv = s.machines[m];
  std::vector<Pending> combos;
  for (const JobCase& c : s.job_cases) {
    json values = c.values;
    values.update(target != TargetKind::BareMetal ? mv.values : bare_values);
    values["target"] = ToString(target);
    if (Excluded(s, values)) continue;
    Pending p;
    p.run.target = target;
    p.run.job = JobOnMachine(c.job, mv, target);
    p.run.machine = m;
    p.run.params = machine_params;
    p.run.params.update(c.params);
    p.base = ToString(target) + "-" + c.job.name;
    for (const auto& [k, v] : p.run.params.items()) p.base += "-" + IdPart(k, v);
    combos.push_back(std::move(p));
  }
  return combos;
}

// The warm-ups and repeats of a machine's combinations, in declared order (each
// combination's warm-ups, then its repeats) or in freshly shuffled rounds.
std::vector<Pending> OrderRuns(const Scenario& s, const std::vector<Pending>& combos,
                               std::mt19937_64& rng) {
  auto round = [&](std::vector<Pending>& out, uint32_t n, bool warmup) {
    for (Pending p : combos) {
      p.run.warmup = warmup;
      p.run.params["repeat"] = warmup ? 0 : n;
      p.run.params["warmup"] = warmup;
      if (warmup) p.base += "-w" + std::to_string(n);
      else if (s.repeats > 1) p.base += "-r" + std::to_string(n);
      out.push_back(std::move(p));
    }
  };
  std::vector<Pending> runs;
  if (s.order != RunOrder::Random) {
    std::vector<Pending> all;
    for (uint32_t w = 1; w <= s.warmup; ++w) round(all, w, true);
    for (uint32_t r = 1; r <= s.repeats; ++r) round(all, r, false);
    const size_t per = s.warmup + s.repeats;
    for (size_t c = 0; c < combos.size(); ++c)
      for (size_t k = 0; k < per; ++k) runs.push_back(all[k * combos.size() + c]);
    return runs;
  }
  // Rounds: every warm-up round, then every measured round, each freshly shuffled.
  for (uint32_t w = 1; w <= s.warmup + s.repeats; ++w) {
    const bool warmup = w <= s.warmup;
    std::vector<Pending> r;
    round(r, warmup ? w : w - s.warmup, warmup);
    Shuffle(r, rng);
    runs.insert(runs.end(), r.begin(), r.end());
  }
  return runs;
}

struct Group {
  TargetKind target;
  size_t machine;
  std::vector<Pending> runs;
};

// Numbers the runs in group order and labels the machines.
RunPlan Number(const std::vector<Group>& groups) {
  RunPlan plan;
  for (const Group& g : groups) {
    size_t variants = 0;
    for (const Group& other : groups) variants += other.target == g.target;
    PlannedMachine pm{g.target, g.machine, ToString(g.target), plan.runs.size(), g.runs.size()};
    if (variants > 1) pm.label += "-m" + std::to_string(g.machine + 1);
    plan.machines.push_back(pm);
    for (const Pending& p : g.runs) {
      char number[16];
      std::snprintf(number, sizeof number, "%03zu-", plan.runs.size() + 1);
      PlannedRun run = p.run;
      run.run_id = number + p.base;
      plan.runs.push_back(std::move(run));
    }
  }
  return plan;
}

}  // namespace

RunPlan PlanScenario(const Scenario& s) {
  std::mt19937_64 rng(s.order_seed);
  std::vector<Group> groups;
  for (const TargetKind target : s.targets) {
    std::vector<std::string> backings_seen;
    for (size_t m = 0; m < s.machines.size(); ++m) {
      json machine_params = s.machines[m].params;
      json bare_values = json::object();
      if (target == TargetKind::BareMetal &&
          !BareMetalBacking(s.machines[m], backings_seen, machine_params, bare_values))
        continue;
      const std::vector<Pending> combos = Combos(s, m, target, machine_params, bare_values);
      if (combos.empty()) continue;
      groups.push_back(Group{target, m, OrderRuns(s, combos, rng)});
    }
  }
  if (s.order == RunOrder::Random) Shuffle(groups, rng);
  return Number(groups);
}

std::vector<PlannedRun> PlanRuns(const Scenario& scenario) { return PlanScenario(scenario).runs; }

DryRun PlanDryRun(const Scenario& scenario, const std::string& accel) {
  DryRun d;
  d.plan = PlanScenario(scenario);
  for (const auto& m : d.plan.machines) {
    if (m.target == TargetKind::BareMetal) continue;
    ++d.guest_boots;
    d.estimate_s += accel == "kvm" ? kBootKvmS : kBootTcgS;
  }
  for (const auto& run : d.plan.runs) {
    (run.warmup ? d.warmup_runs : d.measured_runs)++;
    const JobSpec& j = run.job;
    double job_s = j.runtime_s;
    if (job_s == 0) {
      const DiskConfig& disk = scenario.machines[run.machine].disk;
      const double bytes = j.io_limit ? j.io_limit : j.size ? j.size : disk.size_bytes;
      job_s = bytes / (kAssumedMiBs * 1024 * 1024);
    }
    d.estimate_s += job_s + kRunOverheadS;
  }
  return d;
}

std::string RenderDryRun(const Scenario& s, const DryRun& d, const std::string& accel) {
  std::ostringstream out;
  out << "scenario " << s.name << " (" << s.path << "): valid\n";
  for (const auto& m : d.plan.machines) {
    const MachineVariant& mv = s.machines[m.machine];
    out << "machine " << m.label << ": ";
    if (m.target == TargetKind::BareMetal) {
      out << "host loop device over a " << (mv.disk.image_bytes() >> 20) << " MiB "
          << (mv.disk.filesystem.empty() ? "backing" : mv.disk.filesystem + " image, mounted");
    } else {
      out << mv.machine.vcpus << " vCPU, " << (mv.machine.memory_bytes >> 20) << " MiB, kernel "
          << mv.machine.kernel << ", disk " << (mv.disk.image_bytes() >> 20) << " MiB aio "
          << ToString(mv.disk.aio) << " cache " << ToString(mv.disk.cache)
          << (mv.disk.iothread ? " iothread" : "")
          << (!DriverHasStorage(mv.disk.driver)
                  ? " " + mv.disk.driver + " latency " + std::to_string(mv.disk.null_latency_ns) +
                        " ns"
                  : "")
          << (mv.disk.format != "raw" ? " " + mv.disk.format : "")
          << (mv.disk.filesystem.empty() ? "" : " " + mv.disk.filesystem + " image");
    }
    out << (mv.params.empty() ? "" : " " + mv.params.dump()) << " (" << m.run_count
        << " runs)\n";
    for (size_t i = m.first_run; i < m.first_run + m.run_count; ++i) {
      const PlannedRun& r = d.plan.runs[i];
      out << "  " << r.run_id << "  " << ToString(r.target) << "  " << ToString(r.job.rw) << " "
          << ToString(r.job.pattern) << " bs " << r.job.bs << " iodepth " << r.job.iodepth << " "
          << ToString(r.job.engine) << (r.job.direct ? " direct" : " buffered") << " cache "
          << ToString(r.job.cache) << "  " << r.params.dump() << "\n";
    }
  }
  out << d.plan.runs.size() << " runs (" << d.measured_runs << " measured, " << d.warmup_runs
      << " warm-up), " << d.guest_boots << " guest boots, order "
      << (s.order == RunOrder::Random ? "random (seed " + std::to_string(s.order_seed) + ")"
                                      : std::string("sequential"))
      << "\nestimated time: " << static_cast<long>(d.estimate_s + 0.5) << " s under " << accel
      << " (boot " << (accel == "kvm" ? kBootKvmS : kBootTcgS) << " s per guest, "
      << kRunOverheadS << " s per run, " << kAssumedMiBs
      << " MiB/s for jobs without runtime)\nnothing was created (dry run)\n";
  return out.str();
}

}  // namespace storbed

#include "plan/run_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <set>
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

// One round of a machine's combinations: warm-up `n` or repeat `n` of each, in declared
// order.
std::vector<Pending> Round(const Scenario& s, const std::vector<Pending>& combos, uint32_t n,
                           bool warmup) {
  std::vector<Pending> out;
  for (Pending p : combos) {
    p.run.warmup = warmup;
    p.run.params["repeat"] = warmup ? 0 : n;
    p.run.params["warmup"] = warmup;
    if (warmup) p.base += "-w" + std::to_string(n);
    else if (s.repeats > 1) p.base += "-r" + std::to_string(n);
    out.push_back(std::move(p));
  }
  return out;
}

// Rounds first..last (warm-up rounds are 1..warmup, measured ones after), each freshly
// shuffled.
std::vector<Pending> ShuffledRounds(const Scenario& s, const std::vector<Pending>& combos,
                                    uint32_t first, uint32_t last, std::mt19937_64& rng) {
  std::vector<Pending> runs;
  for (uint32_t w = first; w <= last; ++w) {
    const bool warmup = w <= s.warmup;
    std::vector<Pending> r = Round(s, combos, warmup ? w : w - s.warmup, warmup);
    Shuffle(r, rng);
    runs.insert(runs.end(), r.begin(), r.end());
  }
  return runs;
}

// The warm-ups and repeats of a machine's combinations, in declared order (each
// combination's warm-ups, then its repeats) or in freshly shuffled rounds.
std::vector<Pending> OrderRuns(const Scenario& s, const std::vector<Pending>& combos,
                               std::mt19937_64& rng) {
  if (s.order != RunOrder::Sequential)
    return ShuffledRounds(s, combos, 1, s.warmup + s.repeats, rng);
  std::vector<Pending> all;
  for (uint32_t w = 1; w <= s.warmup; ++w) {
    auto r = Round(s, combos, w, true);
    all.insert(all.end(), r.begin(), r.end());
  }
  for (uint32_t r = 1; r <= s.repeats; ++r) {
    auto round = Round(s, combos, r, false);
    all.insert(all.end(), round.begin(), round.end());
  }
  std::vector<Pending> runs;
  const size_t per = s.warmup + s.repeats;
  for (size_t c = 0; c < combos.size(); ++c)
    for (size_t k = 0; k < per; ++k) runs.push_back(all[k * combos.size() + c]);
  return runs;
}

struct Group {
  TargetKind target;
  size_t machine;
  std::vector<Pending> runs;
  uint32_t block = 0;  // interleaved: the round this boot runs (0: every round)
};

struct MachineCombos {
  TargetKind target;
  size_t machine;
  std::vector<Pending> combos;
};

// Randomised complete blocks: round r boots every machine once, in a fresh random order,
// and runs repeat r of each of its combinations (shuffled, after the warm-ups every boot
// gets), so drift over the session hits every side of every factor alike. One machine
// needs no reboot: its rounds are shuffled in place, as in random order.
std::vector<Group> Interleave(const Scenario& s, const std::vector<MachineCombos>& machines,
                              std::mt19937_64& rng) {
  if (machines.size() == 1)
    return {Group{machines[0].target, machines[0].machine,
                  ShuffledRounds(s, machines[0].combos, 1, s.warmup + s.repeats, rng), 0}};
  std::vector<Group> groups;
  for (uint32_t r = 1; r <= s.repeats; ++r) {
    std::vector<size_t> order(machines.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    Shuffle(order, rng);
    for (const size_t i : order) {
      const MachineCombos& m = machines[i];
      std::vector<Pending> runs = ShuffledRounds(s, m.combos, 1, s.warmup, rng);
      const std::vector<Pending> measured =
          ShuffledRounds(s, m.combos, s.warmup + r, s.warmup + r, rng);
      runs.insert(runs.end(), measured.begin(), measured.end());
      groups.push_back(Group{m.target, m.machine, std::move(runs), r});
    }
  }
  return groups;
}

// Numbers the runs in group order and labels the machines.
RunPlan Number(const std::vector<Group>& groups) {
  RunPlan plan;
  for (const Group& g : groups) {
    std::set<size_t> variants;  // the target's machine combinations
    for (const Group& other : groups)
      if (other.target == g.target) variants.insert(other.machine);
    PlannedMachine pm{g.target, g.machine, ToString(g.target), plan.runs.size(), g.runs.size()};
    if (variants.size() > 1) pm.label += "-m" + std::to_string(g.machine + 1);
    if (g.block > 0) pm.label += "-b" + std::to_string(g.block);
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
  std::vector<MachineCombos> machines;
  for (const TargetKind target : s.targets) {
    std::vector<std::string> backings_seen;
    for (size_t m = 0; m < s.machines.size(); ++m) {
      json machine_params = s.machines[m].params;
      json bare_values = json::object();
      if (target == TargetKind::BareMetal &&
          !BareMetalBacking(s.machines[m], backings_seen, machine_params, bare_values))
        continue;
      std::vector<Pending> combos = Combos(s, m, target, machine_params, bare_values);
      if (!combos.empty()) machines.push_back({target, m, std::move(combos)});
    }
  }
  if (s.order == RunOrder::Interleaved) return Number(Interleave(s, machines, rng));
  std::vector<Group> groups;
  for (const MachineCombos& m : machines)
    groups.push_back(Group{m.target, m.machine, OrderRuns(s, m.combos, rng)});
  if (s.order == RunOrder::Random) Shuffle(groups, rng);
  return Number(groups);
}

std::string WhyScenarioRebootsPerRound(const Scenario& scenario) {
  if (scenario.order != RunOrder::Interleaved) return "the order is not interleaved";
  for (const MachineVariant& v : scenario.machines) {
    if (!v.disk.passthrough.empty())
      return "the disk is passed through: the bare-metal twin needs the device back each round";
    if (!v.disk.backing.empty())
      return "disk.backing " + v.disk.backing +
             " is one file or device, which a kept machine would hold from the others";
  }
  if (!scenario.disk.passthrough.empty())
    return "the disk is passed through: the bare-metal twin needs the device back each round";
  return "";
}

DryRun PlanDryRun(const Scenario& scenario, const std::string& accel) {
  DryRun d;
  d.plan = PlanScenario(scenario);
  // reboot per_machine keeps each machine across its rounds: one boot each (at most; the
  // memory budget may shut one down and boot it again, and a passed-through disk does not
  // keep: docs/compare.md).
  const bool keep =
      scenario.reboot == Reboot::PerMachine && WhyScenarioRebootsPerRound(scenario).empty();
  std::set<std::pair<std::string, size_t>> booted;
  for (const auto& m : d.plan.machines) {
    if (m.target == TargetKind::BareMetal) continue;
    if (keep && !booted.insert({ToString(m.target), m.machine}).second) continue;
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
    if (!mv.disk.passthrough.empty()) {
      out << (m.target == TargetKind::BareMetal
                  ? "host, on the first NVMe namespace of PCI device " + mv.disk.passthrough
                  : std::to_string(mv.machine.vcpus) + " vCPU, " +
                        std::to_string(mv.machine.memory_bytes >> 20) + " MiB, kernel " +
                        mv.machine.kernel + ", PCI device " + mv.disk.passthrough +
                        " passed through (vfio-pci)");
    } else if (m.target == TargetKind::BareMetal) {
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
      << ToString(s.order)
      << (s.order == RunOrder::Interleaved && s.reboot == Reboot::PerMachine
              ? " (reboot per_machine)"
              : "")
      << (s.order != RunOrder::Sequential ? " (seed " + std::to_string(s.order_seed) + ")" : "")
      << "\nestimated time: " << static_cast<long>(d.estimate_s + 0.5) << " s under " << accel
      << " (boot " << (accel == "kvm" ? kBootKvmS : kBootTcgS) << " s per guest, "
      << kRunOverheadS << " s per run, " << kAssumedMiBs
      << " MiB/s for jobs without runtime)\nnothing was created (dry run)\n";
  return out.str();
}

}  // namespace storbed

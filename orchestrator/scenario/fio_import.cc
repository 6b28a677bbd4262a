#include "scenario/fio_import.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "input_file.h"
#include "job_fields.h"
#include "quoted_value.h"
#include "scenario/fio_values.h"
#include "scenario/name_rule.h"
#include "scenario/scenario_fields.h"

namespace storbed {
namespace {

using nlohmann::json;

struct Section {
  std::string name;
  int line = 0;
  std::vector<Option> options;
};

std::vector<Section> ParseIni(const std::string& text, Problems& problems) {
  std::vector<Section> sections;
  std::istringstream in(text);
  std::string raw;
  int n = 0;
  while (std::getline(in, raw)) {
    ++n;
    std::string line = Trim(raw);
    if (line.empty() || line[0] == ';' || line[0] == '#') continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        problems.Add(n, "section header '" + ValuePrefix(line) + "' has no closing ']'");
        continue;
      }
      sections.push_back({Trim(line.substr(1, line.size() - 2)), n, {}});
      continue;
    }
    if (sections.empty()) {
      problems.Add(n, "option '" + ValuePrefix(line) + "' comes before any [section]");
      continue;
    }
    const auto eq = line.find('=');
    Option o{Lower(Trim(line.substr(0, eq))), eq == std::string::npos ? "1" : Trim(line.substr(eq + 1)), n};
    sections.back().options.push_back(o);
  }
  return sections;
}

// fio's aliases of one option.
std::string Canonical(const std::string& key) {
  static const std::map<std::string, std::string> kAliases = {
      {"readwrite", "rw"}, {"blocksize", "bs"}, {"io_limit", "io_size"},
      // fio takes an option by a unique prefix of its name; seed 000 writes --fadvise.
      {"fadvise", "fadvise_hint"}, {"iodepth_batch", "iodepth_batch_submit"}, {"mem", "iomem"}};
  const auto it = kAliases.find(key);
  return it == kAliases.end() ? key : it->second;
}

// The job row whose fio option is `key` and maps 1:1, or nullptr.
const FieldSpec* FioRow(const std::string& key) {
  for (const auto& row : JobRows())
    if (!row.spec.fio.empty() && row.spec.fio == key) return &row.spec;
  return nullptr;
}

// A fio value in the row's type, as the scenario field takes it.
std::optional<json> FioValue(const FieldSpec& f, const Option& o, Problems& p) {
  switch (f.type) {
    case FieldType::Integer:
      if (auto v = Integer(o, p)) return json(*v);
      return std::nullopt;
    case FieldType::Size:
      if (auto b = Bytes(o, o.value, p)) return json(*b);
      return std::nullopt;
    case FieldType::Bool: return json(ParseBool(o, p));
    default: return json(o.value);
  }
}

// fio's rw: the pattern and direction, and a ":<skip>" suffix kept for ApplyRwSkip.
void MapRw(const Option& o, json& job, Problems& p, std::optional<Option>& rw_skip) {
  const std::string base = Lower(o.value.substr(0, o.value.find(':')));
  static const std::map<std::string, std::pair<const char*, const char*>> kRw = {
      {"read", {"sequential", "read"}},      {"write", {"sequential", "write"}},
      {"randread", {"random", "read"}},      {"randwrite", {"random", "write"}},
      {"rw", {"sequential", "mixed"}},       {"readwrite", {"sequential", "mixed"}},
      {"randrw", {"random", "mixed"}}};
  if (!kRw.count(base)) {
    p.Add(o.line, "option 'rw': '" + base + "' is not supported by storbed (read, write, "
                  "randread, randwrite, rw, readwrite, randrw)");
    return;
  }
  job["pattern"] = kRw.at(base).first;
  job["rw"] = kRw.at(base).second;
  if (o.value.find(':') != std::string::npos) rw_skip = o;
}

void MapIoengine(const Option& o, json& job, Problems& p, std::vector<std::string>& notes) {
  const std::string e = Lower(o.value);
  if (const EngineRow* row = FindFioEngineRow(e)) {
    job["ioengine"] = row->name;
    if (e != row->name)
      notes.push_back(p.path() + ":" + std::to_string(o.line) + ": ioengine " + e + " runs as " +
                      row->name + " (" + row->fio_why + ")");
  } else {
    p.Add(o.line, "option 'ioengine': '" + ValuePrefix(o.value) +
                      "' is not supported by storbed (" + EngineNameList() + ")");
  }
}

// fio's iodepth_batch_complete_min (0: poll for completions) and userspace_reap.
void MapReap(const std::string& key, const Option& o, json& job, Problems& p) {
  if (key == "userspace_reap") {
    if (ParseBool(o, p)) job["reap"] = "poll";
    return;
  }
  if (auto v = Integer(o, p)) {
    if (*v == 0) job["reap"] = "poll";
    else if (*v == 1) job["reap"] = "wait";
    else
      p.Add(o.line, "option '" + key +
                        "': storbed reaps whatever has completed, waiting "
                        "for at least 1 (1) or polling (0), got '" +
                        ValuePrefix(o.value) + "'");
  }
}

void MapFadvise(const Option& o, json& job, Problems& p) {
  const std::string v = Lower(o.value);
  if (v == "0") job["fadvise_hint"] = "none";
  else if (v == "1") job["fadvise_hint"] = "fio-1";  // resolved in FinishJob from the pattern
  else if (v == "sequential" || v == "random" || v == "willneed") job["fadvise_hint"] = v;
  else
    p.Add(o.line, "option 'fadvise_hint': expected 0, 1, sequential, random or willneed, got '" +
                      ValuePrefix(o.value) + "'");
}

void MapDistribution(const Option& o, json& job, Problems& p) {
  const std::string v = Lower(o.value);
  if (v == "random") {
    job["random_distribution"] = "uniform";
  } else if (v.rfind("zipf:", 0) == 0) {
    job["random_distribution"] = "zipf";
    try {
      job["zipf_theta"] = std::stod(v.substr(5));
    } catch (const std::exception&) {
      p.Add(o.line,
            "option 'random_distribution': bad zipf theta in '" + ValuePrefix(o.value) + "'");
    }
  } else if (v.rfind("zoned:", 0) == 0) {
    // zoned:P1/F1:P2/F2 with two zones is a hot share F1% taking P1% of the IOs.
    double p1 = 0, f1 = 0, p2 = 0, f2 = 0;
    char extra = 0;
    if (std::sscanf(v.c_str(), "zoned:%lf/%lf:%lf/%lf%c", &p1, &f1, &p2, &f2, &extra) == 4 &&
        p1 + p2 == 100 && f1 + f2 == 100) {
      job["random_distribution"] = "hotcold";
      job["hot_pct"] = p1;
      job["hot_fraction"] = f1 / 100;
    } else {
      p.Add(o.line,
            "option 'random_distribution': storbed maps zoned only with two zones "
            "(zoned:P/F:100-P/100-F, a hot and a cold share), got '" +
                ValuePrefix(o.value) + "'");
    }
  } else {
    p.Add(o.line, "option 'random_distribution': '" + ValuePrefix(o.value) +
                      "' is not supported by storbed (random, zipf:<theta>, zoned with two zones)");
  }
}

// rw=read:<skip> is storbed's gappy pattern.
void ApplyRwSkip(const Option& rw_skip, json& job, Problems& p, std::vector<std::string>& notes) {
  const uint64_t bs = job.value("bs", uint64_t{4096});
  const std::string skip_text = rw_skip.value.substr(rw_skip.value.find(':') + 1);
  // For random IO a bare count is fio's rw_sequencer: N IOs (N-1 of them sequential) per
  // random offset, storbed's random_run. fio's runs start at any block, storbed's at
  // multiples of N, and say so.
  if (job["pattern"] == "random" && !skip_text.empty() &&
      skip_text.find_first_not_of("0123456789") == std::string::npos) {
    const auto run = Integer(Option{rw_skip.key, skip_text, rw_skip.line}, p);
    if (!run) return;
    if (*run < 1) {
      p.Add(rw_skip.line, "option 'rw': " + rw_skip.value + ": the count of IOs per random "
                          "offset must be at least 1");
    } else if (*run > 1) {
      job["random_run"] = *run;
      notes.push_back(p.path() + ":" + std::to_string(rw_skip.line) + ": option 'rw': " +
                      rw_skip.value + " runs as random_run " + skip_text + ": runs of " +
                      skip_text + " blocks in a row from random offsets, each run once per "
                      "pass; fio's runs may start at any block, storbed's start at multiples "
                      "of " + skip_text);
    }
    return;
  }
  auto skip = Bytes(rw_skip, skip_text, p);
  if (!skip || bs == 0) return;  // bs 0 is refused where the job is checked
  if (job["pattern"] != "sequential" || job["rw"] == "mixed") {
    p.Add(rw_skip.line, "option 'rw': a ':<skip>' suffix maps to storbed's gappy pattern, "
                        "which reads or writes sequentially only");
  } else if (*skip % bs != 0) {
    p.Add(rw_skip.line, "option 'rw': skip " + skip_text + " is not a multiple of bs (" +
                            std::to_string(bs) + " bytes)");
  } else if (*skip > 0) {
    job["pattern"] = "gappy";
    job["gappy_read"] = 1;
    job["gappy_skip"] = *skip / bs;
  }
}

// fio's loops and number_ios, kept until the whole job is known.
struct Passes {
  std::optional<Option> loops;
  std::optional<Option> number_ios;
};

// number_ios=N stops after N IOs: N blocks of bs bytes (fio stops at whichever of io_size
// and number_ios comes first).
void ApplyNumberIos(const Option& o, json& job, Problems& p) {
  const auto n = Integer(o, p);
  if (!n) return;
  if (*n < 1) {
    p.Add(o.line, "option 'number_ios': must be at least 1, got '" + ValuePrefix(o.value) + "'");
    return;
  }
  const uint64_t bytes = uint64_t(*n) * job.value("bs", uint64_t{4096});
  const uint64_t io_size = job.value("io_size", uint64_t{0});
  job["io_size"] = io_size == 0 ? bytes : std::min(io_size, bytes);
}

// iodepth_batch_submit=N: N IOs per submit call (submit_batch); fio's 0 means iodepth.
void ApplySubmitBatch(const Option& o, json& job, Problems& p) {
  const auto n = Integer(o, p);
  if (!n) return;
  if (*n < 0) {
    p.Add(o.line, "option 'iodepth_batch_submit': must be 0 (iodepth) or more, got '" +
                      ValuePrefix(o.value) + "'");
    return;
  }
  job["submit_batch"] = *n == 0 ? job.value("iodepth", int64_t{1}) : *n;
}

// iomem=TYPE: where fio's IO buffers live. malloc, mmap, shm and mmapshared are 4 KiB
// pages, storbed's default; mmaphuge[:file] and shmhuge are huge pages, which storbed takes
// as transparent huge pages (huge_buffers), no hugetlbfs file or reserved pool needed.
void MapIomem(const Option& o, json& job, Problems& p, std::vector<std::string>& notes) {
  const std::string type = o.value.substr(0, o.value.find(':'));
  if (type == "mmaphuge" || type == "shmhuge") {
    job["huge_buffers"] = true;
    notes.push_back(p.path() + ":" + std::to_string(o.line) +
                    ": option 'iomem=" + ValuePrefix(o.value) +
                    "' runs as huge_buffers: transparent huge pages, not hugetlbfs (the "
                    "result's huge_buffer_bytes says how much the kernel gave)");
  } else if (type != "malloc" && type != "mmap" && type != "shm" && type != "mmapshared") {
    p.Add(o.line,
          "option 'iomem': storbed maps malloc, mmap, shm, mmapshared (4 KiB pages) "
          "and mmaphuge, shmhuge (huge pages), got '" +
              ValuePrefix(o.value) + "'");
  }
}

// loops=N runs the job N times over its region (storbed's loops). With time_based the
// runtime decides how many passes there are.
void ApplyLoops(const Option& o, bool time_based, json& job, Problems& p,
                std::vector<std::string>& notes, const std::string& name) {
  const auto n = Integer(o, p);
  if (!n) return;
  if (*n < 1) {
    p.Add(o.line, "option 'loops': must be at least 1, got '" + ValuePrefix(o.value) + "'");
    return;
  }
  if (*n == 1) return;
  if (time_based) {
    notes.push_back(p.path() + ": " + name + ": loops ignored with time_based (runtime decides)");
    return;
  }
  job["loops"] = *n;
}

// fio's invalidate=1 (its default) drops the file's cache each time it opens it: before
// the job and again at every loop and time_based pass. For buffered jobs that changes what
// every pass after the first measures, so it maps to invalidate_each_pass; O_DIRECT reads
// bypass the cache, and the single drop before the job is enough.
void ApplyPassInvalidation(bool time_based, json& job, std::vector<std::string>& notes,
                           const std::string& where) {
  const bool passes = time_based || job.value("loops", 1) > 1;
  if (!passes || !job.value("invalidate", true) || job.value("direct", false)) return;
  job["invalidate_each_pass"] = true;
  notes.push_back(where + ": invalidate=1 with " + (time_based ? "time_based" : "loops") +
                  ": the cache is dropped before every pass, as fio does; each drop is timed "
                  "outside runtime (add invalidate_in_runtime to count it as fio does)");
}

// The rules that need the whole job: fadvise_hint=1, loops, number_ios, and runtime
// without time_based.
void FinishJob(const std::string& name, bool time_based, const Passes& passes, json& job,
               Problems& p, std::vector<std::string>& notes) {
  if (job.value("fadvise_hint", "") == "fio-1")
    job["fadvise_hint"] = job.value("pattern", "sequential") == "random" ? "random" : "sequential";
  if (passes.loops) ApplyLoops(*passes.loops, time_based, job, p, notes, name);
  if (passes.number_ios) ApplyNumberIos(*passes.number_ios, job, p);
  ApplyPassInvalidation(time_based, job, notes, p.path() + ": " + name);
  if (job.contains("runtime") && !time_based && !job.contains("io_size") &&
      job.value("pattern", "sequential") != "random") {
    // fio without time_based stops after one pass; storbed's runtime loops like time_based.
    job["io_size"] = job.value("size", uint64_t{0});
  }
  if (time_based && !job.contains("runtime"))
    notes.push_back(p.path() + ": " + name + ": time_based without runtime has no effect");
}

// Whether fio's option `key` is a flag that picks an engine (an engine row's fio_flag).
bool IsEngineFlag(const std::string& key) {
  for (const EngineRow* row : FioFlagRows())
    if (key == row->fio_flag) return true;
  return false;
}

// "option 'hipri': storbed maps it with ioengine pvsync2 only, and one of hipri and nowait
// at a time (ioengine pvsync2_hipri or pvsync2_nowait)", from the engine rows.
std::string EngineFlagRule(const std::string& flag) {
  std::string ioengine;
  for (const EngineRow* row : FioFlagRows())
    if (flag == row->fio_flag) ioengine = row->fio_ioengine;
  std::vector<const EngineRow*> rows;
  for (const EngineRow* row : FioFlagRows())
    if (ioengine == row->fio_ioengine) rows.push_back(row);
  std::string flags, names;
  for (size_t i = 0; i < rows.size(); ++i) {
    const bool last = i + 1 == rows.size();
    flags += (i == 0 ? "" : last ? " and " : ", ") + std::string(rows[i]->fio_flag);
    names += (i == 0 ? "" : last ? " or " : ", ") + std::string(rows[i]->name);
  }
  return "option '" + flag + "': storbed maps it with ioengine " + ioengine + " only, and " +
         "one of " + flags + " at a time (ioengine " + names + ")";
}

// fio's flags that pick an engine (pvsync2's hipri for RWF_HIPRI and nowait for RWF_NOWAIT)
// are storbed engines of their own (pvsync2_hipri, pvsync2_nowait: common/engine_table.cc).
void ApplyEngineFlags(const std::map<std::string, bool>& flags, json& job, Problems& p, int line) {
  const EngineRow* chosen = nullptr;
  for (const auto& [flag, on] : flags) {
    if (!on) continue;
    const EngineRow* row = FindFioFlagRow(job.value("ioengine", ""), flag);
    if (!row || chosen) {
      p.Add(line, EngineFlagRule(flag));
      return;
    }
    chosen = row;
  }
  if (chosen) job["ioengine"] = chosen->name;
}

// One fio job (its own options after [global]'s) -> a storbed job object.
json MapJob(const std::string& name, const std::vector<Option>& options, Problems& p,
            std::vector<std::string>& notes) {
  std::map<std::string, Option> last;  // a later value wins, as in fio
  for (const auto& o : options) last[Canonical(o.key)] = o;
  json job = {{"name", name}, {"direct", false}};  // fio's default is buffered IO
  std::optional<Option> rw_skip;
  bool time_based = false;
  Passes passes;
  std::map<std::string, bool> engine_flags;  // hipri, nowait: applied once ioengine is known
  int engine_flags_line = 0;
  std::optional<Option> submit_batch;  // applied once iodepth is known
  for (const auto& [key, o] : last) {
    if (key == "rw") {
      MapRw(o, job, p, rw_skip);
    } else if (const FieldSpec* f = FioRow(key)) {
      if (auto v = FioValue(*f, o, p)) job[f->name] = *v;
    } else if (key == "rwmixwrite") {
      if (auto v = Integer(o, p)) job["rwmixread"] = 100 - *v;
    } else if (key == "ioengine") {
      MapIoengine(o, job, p, notes);
    } else if (key == "invalidate") {
      job[key] = ParseBool(o, p);
    } else if (key == "buffered") {
      job["direct"] = !ParseBool(o, p);
    } else if (key == "runtime") {
      if (auto s = Seconds(o, p)) job["runtime"] = *s;
    } else if (key == "time_based") {
      time_based = ParseBool(o, p);
    } else if (key == "loops") {
      passes.loops = o;
    } else if (key == "number_ios") {
      passes.number_ios = o;
    } else if (key == "norandommap") {
      notes.push_back(p.path() + ":" + std::to_string(o.line) +
                      ": option 'norandommap' ignored (storbed's random pattern visits each "
                      "block once per pass, as fio's random map does)");
    } else if (key == "stonewall" || key == "wait_for_previous" || key == "thread") {
      // storbed runs a scenario's jobs one after another, each in the agent's threads.
      notes.push_back(p.path() + ":" + std::to_string(o.line) + ": option '" + key +
                      "' ignored (storbed runs jobs one at a time, in order, as threads)");
    } else if (key == "fadvise_hint") {
      MapFadvise(o, job, p);
    } else if (key == "iodepth_batch_complete_min" || key == "iodepth_batch_complete" ||
               key == "userspace_reap") {
      MapReap(key, o, job, p);
    } else if (key == "iodepth_batch_submit") {
      submit_batch = o;
    } else if (key == "iomem") {
      MapIomem(o, job, p, notes);
    } else if (IsEngineFlag(key)) {
      engine_flags[key] = ParseBool(o, p);
      engine_flags_line = o.line;
    } else if (key == "verify") {
      job["verify"] = o.value != "0";
    } else if (key == "random_distribution") {
      MapDistribution(o, job, p);
    } else if (key == "filename" || key == "name" || key == "group_reporting" ||
               key == "description") {
      notes.push_back(p.path() + ":" + std::to_string(o.line) + ": option '" + key +
                      "' ignored (storbed picks the disk under test and names jobs by section)");
    } else {
      p.Add(o.line, "option '" + ValuePrefix(key) + "' is not supported by storbed");
    }
  }
  if (rw_skip) ApplyRwSkip(*rw_skip, job, p, notes);
  if (submit_batch) ApplySubmitBatch(*submit_batch, job, p);
  ApplyEngineFlags(engine_flags, job, p, engine_flags_line);
  FinishJob(name, time_based, passes, job, p, notes);
  return job;
}

}  // namespace

std::vector<std::string> ParseFioTargets(const std::string& list) {
  const std::vector<std::string> all = TargetNames();
  // The scenario's default targets; the others only when asked for.
  if (list.empty()) return DefaultTargetNames();
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = Trim(item);
    if (std::find(all.begin(), all.end(), item) == all.end()) {
      std::string names;
      for (const std::string& t : all) names += (names.empty() ? "" : ", ") + t;
      throw ScenarioError("--target: '" + item + "' is not a target (" + names + ")");
    }
    out.push_back(item);
  }
  return out;
}

FioImport ImportFio(const std::string& text, const std::string& path,
                    const std::vector<std::string>& targets, uint64_t max_runs) {
  Problems problems(path);
  FioImport out;
  const std::vector<Section> sections = ParseIni(text, problems);
  std::vector<Option> global;
  json jobs = json::array();
  for (const auto& s : sections) {
    if (s.name == "global") {
      global.insert(global.end(), s.options.begin(), s.options.end());
      continue;
    }
    // The section name becomes the job's name, and so part of file and run names.
    if (const std::string why = NameProblem(s.name); !why.empty())
      problems.Add(s.line, "[" + QuotedForMessage(s.name) + "]: section name " + why);
    std::vector<Option> options = global;
    options.insert(options.end(), s.options.begin(), s.options.end());
    jobs.push_back(MapJob(s.name, options, problems, out.notes));
  }
  problems.ThrowIfAny();
  if (jobs.empty()) throw ScenarioError(path + ": no job sections (only [global] or nothing)");
  uint64_t disk = 64ull << 20;
  for (const auto& j : jobs) disk = std::max(disk, j.value("size", uint64_t{0}));
  for (auto& j : jobs) {
    if (j.contains("io_size") && j["io_size"] == 0) j["io_size"] = disk;  // one pass of the disk
  }
  out.document = {{"name", SanitizedName(std::filesystem::path(path).stem().string())},
                  {"description", "Imported from the fio job file " + path + "."},
                  {"targets", targets},
                  {"disk", {{"size", disk}}},
                  {"jobs", jobs}};
  out.scenario = ScenarioFromJson(out.document, path, max_runs);
  return out;
}

FioImport ImportFioFile(const std::string& path, const std::vector<std::string>& targets,
                        uint64_t max_runs) {
  std::string text;
  try {
    text = ReadInputFile(path, "fio job file");
  } catch (const InputFileError& e) {
    throw ScenarioError(e.what());
  }
  return ImportFio(text, path, targets, max_runs);
}

}  // namespace storbed

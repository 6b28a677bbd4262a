#include "sampling/host_sampler_cpu.h"

#include <map>
#include <set>
#include <sstream>

#include "file_read.h"
#include "sampling/host_sampler.h"
#include "sampling/qemu_threads.h"

namespace storbed {
namespace {

const CpuTicks* Find(const ProcStatCpus& s, int cpu) {
  for (const CpuTicks& t : s.cpus)
    if (t.cpu == cpu) return &t;
  return nullptr;
}

// Per-metric deltas and their sum; false when the CPU counted no ticks.
bool Deltas(const CpuTicks& b, const CpuTicks& a, std::array<double, kCpuMetrics.size()>* pct) {
  uint64_t total = 0;
  std::array<uint64_t, kCpuMetrics.size()> d{};
  for (size_t m = 0; m < d.size(); ++m) {
    d[m] = a.ticks[m] > b.ticks[m] ? a.ticks[m] - b.ticks[m] : 0;
    total += d[m];
  }
  if (total == 0) return false;
  for (size_t m = 0; m < d.size(); ++m) (*pct)[m] = 100.0 * static_cast<double>(d[m]) / total;
  return true;
}

class CpuSampler : public HostSampler {
 public:
  explicit CpuSampler(const JobSamplerOptions& opt) : path_(opt.proc_root + "/stat") {}

  std::string Label() const override { return "host /proc/stat"; }
  bool Start() override { return true; }

  void Sample(const NowFn& now) override {
    const uint64_t t = now();
    samples_.push_back({t, ParseProcStatCpus(ReadFileOrThrow(path_))});
  }

  void Summarize(const SampleWindow& w, HostLayers* h) const override {
    const auto br = Bracket(samples_, w.start_ns, w.end_ns);
    if (!br) return;
    std::vector<std::string> left_out;
    h->figures["host_cpu"] = CpuPercent(samples_[br->first].s, samples_[br->second].s, &left_out);
    for (const std::string& cpu : left_out)
      h->warnings.push_back("host " + cpu + " is not in both " + path_ +
                            " readings around the window (offline or online in between): "
                            "left out of host_cpu");
    std::set<std::string> malformed;
    // Timelines: (cpu, metric) in order, "all" first; idle and nice are the remainder.
    std::map<std::pair<int, size_t>, Timeline> lines;
    for (size_t i = br->first; i <= br->second; ++i) {
      for (const std::string& line : samples_[i].s.malformed) malformed.insert(line);
      if (i == br->first) continue;
      for (const CpuTicks& a : samples_[i].s.cpus) {
        const CpuTicks* b = Find(samples_[i - 1].s, a.cpu);
        std::array<double, kCpuMetrics.size()> pct{};
        if (b == nullptr || !Deltas(*b, a, &pct)) continue;
        for (size_t m = 0; m < pct.size(); ++m) {
          if (std::string(kCpuMetrics[m]) == "idle" || std::string(kCpuMetrics[m]) == "nice")
            continue;
          Timeline& t = lines[{a.cpu, m}];
          if (t.name.empty()) {
            t.name = std::string("host.") + (a.cpu == kAllCpus ? "cpu" : CpuName(a.cpu)) + "." +
                     kCpuMetrics[m];
            t.unit = "%";
          }
          t.Add(w.Rel(samples_[i].t_ns), pct[m]);
        }
      }
    }
    for (auto& [key, t] : lines) h->timelines.push_back(std::move(t));
    for (const std::string& line : malformed)
      h->warnings.push_back(path_ + ": malformed line skipped: '" + line + "'");
  }

 private:
  struct Entry {
    uint64_t t_ns;
    ProcStatCpus s;
  };
  std::string path_;
  std::vector<Entry> samples_;
};

[[maybe_unused]] const bool kCpuSamplerRegistered = RegisterHostSampler(
    {.name = "host-cpu", .order = 50, .make = [](const SamplerSource&, const JobSamplerOptions& o) {
       return std::make_unique<CpuSampler>(o);
     }});

}  // namespace

std::string CpuName(int cpu) { return cpu == kAllCpus ? "all" : "cpu" + std::to_string(cpu); }

ProcStatCpus ParseProcStatCpus(const std::string& text) {
  ProcStatCpus out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cpu", 0) != 0) continue;
    std::istringstream f(line);
    std::string name;
    f >> name;
    CpuTicks t;
    bool ok = true;
    try {
      size_t used = 0;
      if (name != "cpu") {
        t.cpu = std::stoi(name.substr(3), &used);
        ok = used == name.size() - 3 && t.cpu >= 0;
      }
      // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is
      // already inside user and nice, so the first eight are the whole.
      for (size_t m = 0; ok && m < t.ticks.size(); ++m) {
        std::string v;
        ok = static_cast<bool>(f >> v) && v.find_first_not_of("0123456789") == std::string::npos;
        if (ok) t.ticks[m] = std::stoull(v);
      }
    } catch (const std::exception&) {
      ok = false;
    }
    if (ok) {
      out.cpus.push_back(t);
    } else {
      out.malformed.push_back(line);
    }
  }
  if (out.cpus.empty())
    throw HostProcParseError("/proc/stat: no cpu line parses (truncated?)", text.substr(0, 200));
  return out;
}

nlohmann::json CpuPercent(const ProcStatCpus& before, const ProcStatCpus& after,
                          std::vector<std::string>* left_out) {
  nlohmann::json out = nlohmann::json::object();
  std::set<int> seen;
  for (const CpuTicks& a : after.cpus) {
    seen.insert(a.cpu);
    const CpuTicks* b = Find(before, a.cpu);
    std::array<double, kCpuMetrics.size()> pct{};
    if (b == nullptr) {
      if (left_out) left_out->push_back(CpuName(a.cpu));
      continue;
    }
    if (!Deltas(*b, a, &pct)) continue;
    nlohmann::json& cpu = out[CpuName(a.cpu)];
    for (size_t m = 0; m < pct.size(); ++m) cpu[kCpuMetrics[m]] = pct[m];
  }
  for (const CpuTicks& b : before.cpus)
    if (!seen.count(b.cpu) && left_out) left_out->push_back(CpuName(b.cpu));
  return out;
}

}  // namespace storbed

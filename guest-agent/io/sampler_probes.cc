#include "sampler_probes.h"

#include <map>

#include "diskstats.h"
#include "proc_parse.h"

namespace storbed {

Series& Probe::Get(const std::string& name, const std::string& unit) {
  for (auto& s : series_)
    if (s.name == name) return s;
  series_.push_back(Series{.name = name, .unit = unit, .ns = {}, .value = {}});
  return series_.back();
}

namespace {

void Add(Series& s, uint64_t ns, double v) {
  s.ns.push_back(ns);
  s.value.push_back(v);
}

// A probe over one file opened once at construction.
class FileProbe : public Probe {
 protected:
  FileProbe(const ProbeContext& ctx, const std::string& path) : path_(path) {
    std::string error;
    file_ = ctx.source->Open(path, &error);
    if (!file_) throw ProcParseError(error);
  }
  std::string_view Read() {
    const auto text = file_->Read();
    if (!text) throw ProcParseError(file_->error());
    return *text;
  }
  std::string path_;

 private:
  std::unique_ptr<TextFile> file_;
};

// /sys/class/block covers partitions too (/sys/block only lists whole disks).
std::string SysBlock(const ProbeContext& ctx) { return "/sys/class/block/" + *ctx.device; }

class InflightProbe : public FileProbe {
 public:
  explicit InflightProbe(const ProbeContext& ctx)
      : FileProbe(ctx, SysBlock(ctx) + "/inflight"),
        series_name_("guest." + *ctx.device + ".inflight") {}
  void Sample(uint64_t now_ns, bool baseline) override {
    const uint64_t n = ParseInflight(Read());
    if (!baseline) Add(Get(series_name_, "requests"), now_ns, double(n));
  }

 private:
  std::string series_name_;
};

// Per interval: Little's law depth (delta of diskstats field 11, the summed time
// requests spent queued, over the interval), IOPS and the average request size (readahead
// and merging change it mid-run; an interval without IOs has no size, not size 0).
class DiskstatsProbe : public FileProbe {
 public:
  explicit DiskstatsProbe(const ProbeContext& ctx)
      : FileProbe(ctx, "/proc/diskstats"), device_(*ctx.device) {}
  void Sample(uint64_t now_ns, bool baseline) override {
    std::optional<DiskCounters> c;
    try {
      c = FindDisk(std::string(Read()), device_);
    } catch (const std::runtime_error& e) {
      throw ProcParseError(e.what());
    }
    if (!c) throw ProcParseError("/proc/diskstats: no line for " + device_ + " (truncated?)");
    if (!baseline) {
      const BlockStats d = DiffDiskCounters(last_, *c, double(now_ns - last_ns_) / 1e9);
      Add(Get("guest." + device_ + ".depth", "requests"), now_ns, d.avg_queue_depth);
      Add(Get("guest." + device_ + ".iops", "IO/s"), now_ns, d.iops);
      if (d.reads + d.writes > 0)
        Add(Get("guest." + device_ + ".request_kib", "KiB"), now_ns, d.avg_request_bytes / 1024);
    }
    last_ = *c;
    last_ns_ = now_ns;
  }

 private:
  std::string device_;
  DiskCounters last_;
  uint64_t last_ns_ = 0;
};

class MeminfoProbe : public FileProbe {
 public:
  explicit MeminfoProbe(const ProbeContext& ctx) : FileProbe(ctx, "/proc/meminfo") {}
  void Sample(uint64_t now_ns, bool baseline) override {
    static const std::vector<std::string> kKeys = {"Cached", "Buffers", "Dirty", "Writeback"};
    static const char* const kNames[] = {"cached", "buffers", "dirty", "writeback"};
    const auto kb = ParseMeminfo(Read(), kKeys);
    if (baseline) return;
    for (size_t i = 0; i < kKeys.size(); ++i)
      Add(Get(std::string("guest.meminfo.") + kNames[i], "MiB"), now_ns,
          double(kb.at(kKeys[i])) / 1024.0);
  }
};

class VmstatProbe : public FileProbe {
 public:
  explicit VmstatProbe(const ProbeContext& ctx) : FileProbe(ctx, "/proc/vmstat") {}
  void Sample(uint64_t now_ns, bool baseline) override {
    static const std::vector<std::string> kRequired = {"pgpgin", "pgpgout", "pgmajfault"};
    // workingset_refault_file: kernel >= 5.9.
    static const std::vector<std::string> kOptional = {"workingset_refault_file"};
    const auto now = ParseVmstat(Read(), kRequired, kOptional);
    if (!baseline) {
      const double dt = double(now_ns - last_ns_) / 1e9;
      for (const auto& [key, v] : now) {
        const auto before = last_.find(key);
        if (before == last_.end() || dt <= 0) continue;
        // pgpgin/pgpgout count KiB, the others events.
        const char* unit = key.rfind("pgpg", 0) == 0 ? "KiB/s" : "1/s";
        Add(Get("guest.vmstat." + key, unit), now_ns, double(v - before->second) / dt);
      }
    }
    last_ = now;
    last_ns_ = now_ns;
  }

 private:
  std::map<std::string, uint64_t> last_;
  uint64_t last_ns_ = 0;
};

// iowait % per CPU: the share of the interval's ticks that CPU spent idle with IO
// outstanding. A CPU that appears later (hotplug) gets its baseline then.
class CpuIowaitProbe : public FileProbe {
 public:
  explicit CpuIowaitProbe(const ProbeContext& ctx) : FileProbe(ctx, "/proc/stat") {}
  void Sample(uint64_t now_ns, bool baseline) override {
    for (const CpuTimes& t : ParseCpuTimes(Read())) {
      const auto before = last_.find(t.cpu);
      if (!baseline && before != last_.end()) {
        const uint64_t total = t.total - before->second.total;
        // iowait is not monotonic on NO_HZ kernels: a step back counts as none.
        const uint64_t io = t.iowait > before->second.iowait ? t.iowait - before->second.iowait : 0;
        const double pct = total ? 100.0 * double(io) / double(total) : 0;
        Add(Get("guest.cpu" + std::to_string(t.cpu) + ".iowait", "%"), now_ns, pct);
      }
      last_[t.cpu] = t;
    }
  }

 private:
  std::map<int, CpuTimes> last_;
};

template <typename P>
std::unique_ptr<Probe> Make(const ProbeContext& ctx) {
  return std::make_unique<P>(ctx);
}

}  // namespace

const std::vector<ProbeEntry>& ProbeTable() {
  static const std::vector<ProbeEntry> kProbes = {
      {"inflight", ProbeRate::Fast, true, Make<InflightProbe>},
      {"diskstats", ProbeRate::Slow, true, Make<DiskstatsProbe>},
      {"meminfo", ProbeRate::Slow, false, Make<MeminfoProbe>},
      {"vmstat", ProbeRate::Slow, false, Make<VmstatProbe>},
      {"cpu_iowait", ProbeRate::Slow, false, Make<CpuIowaitProbe>},
  };
  return kProbes;
}

}  // namespace storbed

// The L3 "host device" sampler: /proc/diskstats of the block device(s) under the disk's
// backing (host_device.h resolves the chain), and the flushes they saw.
#include <algorithm>
#include <sstream>

#include "inflight_stats.h"
#include "sampling/host_device.h"
#include "sampling/host_sampler.h"

namespace storbed {
namespace {

// Only the lines of `names`: a 100 ms sampler over a long job must not keep the whole
// host table each time.
std::string FilterDiskstats(const std::string& text, const std::vector<std::string>& names) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string major, minor, name;
    f >> major >> minor >> name;
    for (const std::string& n : names) {
      if (n == name) out += line + "\n";
    }
  }
  return out;
}

class DeviceSampler : public HostSampler {
 public:
  DeviceSampler(const SamplerSource& src, const JobSamplerOptions& opt)
      : backing_(src.backing), opt_(opt) {}

  std::string Label() const override { return "host /proc/diskstats"; }

  bool Start() override {
    if (backing_.empty()) {
      chain_.reason = "no device: no backing path given";
      return false;
    }
    chain_ = ResolveHostDevice(backing_, opt_.sysfs_root, opt_.stat);
    return chain_.available;
  }

  void Sample(const NowFn& now) override {
    const uint64_t t = now();
    samples_.push_back({t, FilterDiskstats(opt_.read_diskstats(), chain_.devices)});
  }

  void Summarize(const SampleWindow& w, HostLayers* h) const override {
    const auto br = Bracket(samples_, w.start_ns, w.end_ns);
    if (!chain_.available) {
      h->host_device = UnavailableLayer(kLayerHostDevice, "/proc/diskstats", chain_.reason);
      return;
    }
    if (!br) {
      h->host_device = UnavailableLayer(kLayerHostDevice, "/proc/diskstats",
                                        "fewer than two host diskstats samples around the window");
      return;
    }
    const Entry& b = samples_[br->first];
    const Entry& a = samples_[br->second];
    h->host_device = HostDeviceLayer(chain_, b.lines, a.lines, Seconds(b, a));
    h->host_flushes = HostFlushes(chain_, b.lines, a.lines);
    SetSpanBound(h->host_device, a.t_ns - b.t_ns, w.end_ns - std::min(w.start_ns, w.end_ns));
    // Field 9 at each sample inside the window: the host device's in-flight distribution.
    std::vector<double> inflight;
    for (const Entry& e : samples_) {
      if (e.t_ns < w.start_ns || e.t_ns > w.end_ns) continue;
      if (auto n = HostInFlight(chain_, e.lines)) inflight.push_back(static_cast<double>(*n));
    }
    h->host_device.inflight = DistributionOfSamples(inflight);
    std::string devs;
    for (const std::string& d : chain_.devices) devs += (devs.empty() ? "" : "+") + d;
    Timeline depth{.name = "host." + devs + ".depth", .unit = "requests", .t_s = {}, .value = {}};
    for (size_t i = br->first + 1; i <= br->second; ++i) {
      LayerStats s = HostDeviceLayer(chain_, samples_[i - 1].lines, samples_[i].lines,
                                     Seconds(samples_[i - 1], samples_[i]));
      if (s.available) depth.Add(w.Rel(samples_[i].t_ns), s.avg_depth);
    }
    h->timelines.push_back(std::move(depth));
  }

 private:
  struct Entry {
    uint64_t t_ns;
    std::string lines;  // the chain's diskstats lines
  };
  static double Seconds(const Entry& b, const Entry& a) {
    return static_cast<double>(a.t_ns - b.t_ns) / 1e9;
  }
  std::string backing_;
  JobSamplerOptions opt_;
  HostDeviceChain chain_;
  std::vector<Entry> samples_;
};

[[maybe_unused]] const bool kDeviceSamplerRegistered =
    RegisterHostSampler({.name = "host-device",
                         .order = 40,
                         .make = [](const SamplerSource& s, const JobSamplerOptions& o) {
                           return std::make_unique<DeviceSampler>(s, o);
                         }});

}  // namespace
}  // namespace storbed

// The L2 "QEMU block" sampler: QMP query-blockstats of one device, or the machine's own
// block counters (libvirt's bulk stats) when the source gives them.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "sampling/host_sampler.h"
#include "sampling/qmp_blockstats.h"

namespace storbed {
namespace {

using nlohmann::json;

class BlockSampler : public HostSampler {
 public:
  explicit BlockSampler(const SamplerSource& src) : src_(src) {}

  std::string Label() const override {
    return src_.block_counters ? src_.block_source : "query-blockstats";
  }

  bool Start() override {
    return static_cast<bool>(src_.qmp) || static_cast<bool>(src_.block_counters);
  }

  void Sample(const NowFn& now) override {
    // Stamped at the middle of the call: a QMP reply can take milliseconds.
    const uint64_t t0 = now();
    if (src_.block_counters) {
      BlockCounters c = src_.block_counters();
      const uint64_t t1 = now();
      samples_.push_back({t0 + (t1 - t0) / 2, std::move(c)});
      return;
    }
    json reply = src_.qmp("query-blockstats", json::object());
    const uint64_t t1 = now();
    std::vector<BlockCounters> all;
    try {
      all = ParseBlockstats(reply);
    } catch (const BlockstatsError& e) {
      throw std::runtime_error(std::string(e.what()) + "; reply: " + e.raw());
    }
    const BlockCounters* c = FindBlockCounters(all, src_.device_id);
    if (c == nullptr)
      throw std::runtime_error("no entry for device " + src_.device_id + " in " + reply.dump());
    samples_.push_back({t0 + (t1 - t0) / 2, *c});
  }

  void Summarize(const SampleWindow& w, HostLayers* h) const override {
    const std::string source =
        src_.block_counters ? src_.block_source : "query-blockstats " + src_.device_id;
    const auto br = Bracket(samples_, w.start_ns, w.end_ns);
    if (!br) {
      h->qemu_block =
          UnavailableLayer(kLayerQemuBlock, source,
                           src_.qmp || src_.block_counters
                               ? "fewer than two " + source + " samples around the window"
                               : "no QMP connection");
      return;
    }
    const Entry& b = samples_[br->first];
    const Entry& a = samples_[br->second];
    BlockDelta d = DiffBlockCounters(b.c, a.c, a.t_ns - b.t_ns);
    h->qemu_block = QemuBlockLayer(d, a.c, source);
    SetSpanBound(h->qemu_block, a.t_ns - b.t_ns, w.end_ns - std::min(w.start_ns, w.end_ns));
    if (d.valid) h->qemu_flushes = d.flushes;
    // The samples' span around the window is said by the bound (SetSpanBound).
    const std::string id = ShortDeviceId(src_.device_id);
    Timeline depth{.name = "qemu." + id + ".depth", .unit = "requests", .t_s = {}, .value = {}};
    Timeline iops{.name = "qemu." + id + ".iops", .unit = "IO/s", .t_s = {}, .value = {}};
    for (size_t i = br->first + 1; i <= br->second; ++i) {
      BlockDelta s = DiffBlockCounters(samples_[i - 1].c, samples_[i].c,
                                       samples_[i].t_ns - samples_[i - 1].t_ns);
      if (!s.valid) continue;
      depth.Add(w.Rel(samples_[i].t_ns), s.avg_depth);
      iops.Add(w.Rel(samples_[i].t_ns), s.iops);
    }
    h->timelines.push_back(std::move(depth));
    h->timelines.push_back(std::move(iops));
  }

 private:
  struct Entry {
    uint64_t t_ns;
    BlockCounters c;
  };
  SamplerSource src_;
  std::vector<Entry> samples_;
};

[[maybe_unused]] const bool kBlockSamplerRegistered =
    RegisterHostSampler({.name = "qemu-block",
                         .order = 10,
                         .make = [](const SamplerSource& s, const JobSamplerOptions&) {
                           return std::make_unique<BlockSampler>(s);
                         }});

}  // namespace
}  // namespace storbed

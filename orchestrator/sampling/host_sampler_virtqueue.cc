// The L2 virtqueue sampler: "inuse" summed over the disk's virtqueues (QEMU's
// x-query-virtio-queue-status). Point samples, so the window takes those inside it.
#include <algorithm>

#include "sampling/host_sampler.h"
#include "sampling/virtqueue_status.h"

namespace storbed {
namespace {

class VirtqueueSampler : public HostSampler {
 public:
  explicit VirtqueueSampler(const SamplerSource& src) : src_(src) {}

  std::string Label() const override { return "x-query-virtio-queue-status"; }

  bool Start() override {
    if (!src_.qmp) {
      target_.reason = "no QMP connection";
      return false;
    }
    try {
      target_ = ResolveVirtqueues(src_.qmp, src_.device_id, src_.bus);
    } catch (const std::exception& e) {
      target_ = VirtqueueTarget{};
      target_.reason = e.what();
    }
    return target_.available;
  }

  void Sample(const NowFn& now) override {
    const uint64_t t0 = now();
    VirtqueueSample s = SampleVirtqueues(src_.qmp, target_);
    const uint64_t t1 = now();
    samples_.push_back({t0 + (t1 - t0) / 2, s.inuse_total, t1 - t0});
  }

  void Summarize(const SampleWindow& w, HostLayers* h) const override {
    const std::string source = "x-query-virtio-queue-status " + src_.device_id;
    std::vector<double> t_s, inuse;
    Timeline line{.name = "virtqueue." + ShortDeviceId(src_.device_id) + ".inuse",
                  .unit = "requests",
                  .t_s = {},
                  .value = {}};
    for (const Entry& q : samples_) {
      if (q.t_ns < w.start_ns || q.t_ns > w.end_ns) continue;
      t_s.push_back(w.Rel(q.t_ns));
      inuse.push_back(static_cast<double>(q.inuse));
      line.Add(t_s.back(), inuse.back());
    }
    h->virtqueue = VirtqueueLayer(target_, t_s, inuse, source);
    // What the sampling cost: QMP round trips served by QEMU's main loop, which also
    // runs the disk's IO without an iothread.
    uint64_t calls = 0, total_ns = 0, max_ns = 0;
    for (const Entry& q : samples_) {
      if (q.t_ns < w.start_ns || q.t_ns > w.end_ns) continue;
      ++calls;
      total_ns += q.call_ns;
      max_ns = std::max(max_ns, q.call_ns);
    }
    if (calls > 0)
      h->figures["virtqueue_sampling"] = {
          {"samples", calls},
          {"mean_call_ms", static_cast<double>(total_ns) / static_cast<double>(calls) / 1e6},
          {"max_call_ms", static_cast<double>(max_ns) / 1e6}};
    if (target_.available) h->timelines.push_back(std::move(line));
  }

 private:
  struct Entry {
    uint64_t t_ns;
    uint64_t inuse;
    uint64_t call_ns;  // the QMP round trips of this sample
  };
  SamplerSource src_;
  VirtqueueTarget target_;
  std::vector<Entry> samples_;
};

[[maybe_unused]] const bool kVirtqueueSamplerRegistered =
    RegisterHostSampler({.name = "virtqueue",
                         .order = 20,
                         .make = [](const SamplerSource& s, const JobSamplerOptions&) {
                           return std::make_unique<VirtqueueSampler>(s);
                         },
                         .fast = true});

}  // namespace
}  // namespace storbed

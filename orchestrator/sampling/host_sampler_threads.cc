// QEMU thread CPU by class (vcpu, iothread, main, worker, other) from
// /proc/PID/task/*/stat over the window, and one timeline per class.
#include <algorithm>

#include "sampling/host_sampler.h"
#include "sampling/qemu_threads.h"

namespace storbed {
namespace {

class ThreadSampler : public HostSampler {
 public:
  ThreadSampler(const SamplerSource& src, const JobSamplerOptions& opt)
      : pid_(src.qemu_pid), reader_(opt.threads), clk_tck_(opt.clk_tck) {}

  std::string Label() const override { return "QEMU thread"; }

  bool Start() override { return pid_ > 0; }

  void Sample(const NowFn& now) override {
    const uint64_t t = now();
    samples_.push_back({t, ParseThreads(pid_, reader_->ReadThreads(pid_))});
  }

  void Summarize(const SampleWindow& w, HostLayers* h) const override {
    const auto br = Bracket(samples_, w.start_ns, w.end_ns);
    if (!br) return;
    const Entry& b = samples_[br->first];
    const Entry& a = samples_[br->second];
    std::optional<std::string> warning;
    auto cpu = CpuPercentByClass(b.s, a.s, Seconds(b, a), clk_tck_, &warning);
    for (const auto& [cls, pct] : cpu) h->qemu_thread_cpu[cls] = pct;
    if (warning) h->warnings.push_back(*warning);
    for (size_t i = br->first + 1; i <= br->second; ++i) {
      auto step = CpuPercentByClass(samples_[i - 1].s, samples_[i].s,
                                    Seconds(samples_[i - 1], samples_[i]), clk_tck_);
      for (const auto& [cls, pct] : step) {
        const std::string name = "qemu.threads." + cls + ".cpu";
        auto it = std::find_if(h->timelines.begin(), h->timelines.end(),
                               [&](const Timeline& t) { return t.name == name; });
        if (it == h->timelines.end()) {
          h->timelines.push_back(Timeline{.name = name, .unit = "%", .t_s = {}, .value = {}});
          it = h->timelines.end() - 1;
        }
        it->Add(w.Rel(samples_[i].t_ns), pct);
      }
    }
  }

 private:
  struct Entry {
    uint64_t t_ns;
    ThreadSnapshot s;
  };
  static double Seconds(const Entry& b, const Entry& a) {
    return static_cast<double>(a.t_ns - b.t_ns) / 1e9;
  }
  int pid_;
  std::shared_ptr<ThreadReader> reader_;
  long clk_tck_;
  std::vector<Entry> samples_;
};

[[maybe_unused]] const bool kThreadsSamplerRegistered =
    RegisterHostSampler({.name = "qemu-threads",
                         .order = 30,
                         .make = [](const SamplerSource& s, const JobSamplerOptions& o) {
                           return std::make_unique<ThreadSampler>(s, o);
                         }});

}  // namespace
}  // namespace storbed

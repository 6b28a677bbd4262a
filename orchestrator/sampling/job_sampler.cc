#include "sampling/job_sampler.h"

#include <unistd.h>

#include <algorithm>

#include "file_read.h"
#include "sampling/clock_sync.h"

namespace storbed {
namespace {

}  // namespace

SamplerSource SourceFromMachine(Machine& machine, const DiskSpec& disk) {
  SamplerSource s;
  s.qmp = machine.Qmp(std::chrono::seconds(2));
  s.qemu_pid = machine.OnThisHost() ? machine.Pid() : -1;
  s.device_id = machine.DeviceId(disk);
  s.bus = disk.bus;
  if (machine.OnThisHost()) s.backing = disk.backing;
  if (auto stats = machine.BlockStats(disk)) {
    s.block_source = stats->name;
    s.block_counters = stats->read;
  }
  return s;
}

JobSampler::JobSampler(SamplerSource source, JobSamplerOptions options) : opt_(std::move(options)) {
  if (!opt_.threads) opt_.threads = std::make_shared<ProcThreadReader>(opt_.proc_root);
  if (!opt_.stat) opt_.stat = StatDevice;
  if (!opt_.read_diskstats) {
    opt_.read_diskstats = [path = opt_.proc_root + "/diskstats"] { return ReadFileOrThrow(path); };
  }
  if (!opt_.now_ns) opt_.now_ns = HostMonotonicNs;
  if (opt_.clk_tck <= 0) opt_.clk_tck = ::sysconf(_SC_CLK_TCK);
  if (opt_.period.count() <= 0) opt_.period = std::chrono::milliseconds(100);
  for (const HostSamplerEntry& e : HostSamplers())
    samplers_.push_back(
        Slot{.name = e.name, .sampler = e.make(source, opt_), .alive = false, .fast = e.fast});
}

JobSampler::~JobSampler() { Stop(); }

void JobSampler::Start() {
  if (started_) return;
  started_ = true;
  for (Slot& s : samplers_) s.alive = s.sampler->Start();
  SampleOnce();
  thread_ = std::thread([this] { Loop(); });
}

void JobSampler::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  SampleOnce();
}

void JobSampler::Loop() {
  using Clock = std::chrono::steady_clock;
  bool any_fast = false;
  for (const Slot& s : samplers_) any_fast |= s.alive && s.fast;
  // One tick per fast period while a fast sampler lives; the others every `period`.
  const auto tick = any_fast ? std::min(opt_.fast_period, opt_.period) : opt_.period;
  auto next = Clock::now() + tick;
  auto next_slow = Clock::now() + opt_.period;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (wake_.wait_until(lock, next, [this] { return stop_requested_; })) return;
    }
    const bool slow_due = Clock::now() >= next_slow;
    Sample(slow_due ? Which::All : Which::Fast);
    if (slow_due) {
      next_slow += opt_.period;
      if (next_slow < Clock::now()) next_slow = Clock::now() + opt_.period;
    }
    // Fixed-rate schedule; after a stall (a slow QMP reply) skip the missed ticks.
    next += tick;
    const auto now = Clock::now();
    if (next < now) next = now + tick;
  }
}

void JobSampler::SampleOnce() { Sample(Which::All); }

void JobSampler::Sample(Which which) {
  std::lock_guard<std::mutex> sampling(sample_mu_);
  for (Slot& s : samplers_) {
    if (!s.alive || (which == Which::Fast && !s.fast)) continue;
    try {
      s.sampler->Sample(opt_.now_ns);
    } catch (const std::exception& e) {
      // One sampler's failure is a warning; the others go on.
      s.alive = false;
      std::lock_guard<std::mutex> lock(mu_);
      warnings_.push_back(s.sampler->Label() + " sampler stopped: " + e.what());
    }
  }
}

std::vector<std::string> JobSampler::Warnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return warnings_;
}

HostLayers JobSampler::Summarize(uint64_t start, uint64_t end) const {
  std::lock_guard<std::mutex> sampling(sample_mu_);
  HostLayers h;
  h.warnings = Warnings();
  const SampleWindow window{.start_ns = start, .end_ns = end};
  for (const Slot& s : samplers_) s.sampler->Summarize(window, &h);
  return h;
}

}  // namespace storbed

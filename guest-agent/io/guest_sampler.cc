#include "guest_sampler.h"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "engine.h"
#include "proc_parse.h"

namespace storbed {

GuestSampler::GuestSampler(const SamplerConfig& config, const TextSource& source)
    : config_(config) {
  const ProbeContext ctx{.device = config.device, .source = &source};
  for (const ProbeEntry& entry : ProbeTable()) {
    const bool fast = entry.rate == ProbeRate::Fast;
    if ((fast ? config.fast_ms : config.slow_ms) == 0) continue;
    if (entry.needs_device && !config.device) continue;
    try {
      (fast ? fast_ : slow_).push_back(Running{entry.name, entry.make(ctx)});
    } catch (const ProcParseError& e) {
      warnings_.push_back(std::string("sampler '") + entry.name + "' off: " + e.what());
    }
  }
}

GuestSampler::~GuestSampler() { Stop(); }

void GuestSampler::Baseline(uint64_t now_ns) {
  start_ns_ = last_slow_ns_ = now_ns;
  SampleAll(fast_, now_ns, true);
  SampleAll(slow_, now_ns, true);
}

void GuestSampler::SampleSlow(uint64_t now_ns) {
  last_slow_ns_ = now_ns;
  SampleAll(slow_, now_ns, false);
}

void GuestSampler::SampleAll(std::vector<Running>& probes, uint64_t now_ns, bool baseline) {
  for (Running& r : probes) {
    if (r.stopped) continue;
    try {
      r.probe->Sample(now_ns, baseline);
    } catch (const std::exception& e) {
      r.stopped = true;
      warnings_.push_back("sampler '" + r.name + "' stopped: " + e.what());
    }
  }
}

void GuestSampler::Start() {
  Baseline(MonotonicNs());
  if (fast_.empty() && slow_.empty()) return;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void GuestSampler::Loop() {
  using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC in libstdc++, like MonotonicNs
  const uint64_t fast_ns = uint64_t(config_.fast_ms) * 1000000,
                 slow_ns = uint64_t(config_.slow_ms) * 1000000;
  uint64_t next_fast = fast_.empty() ? UINT64_MAX : start_ns_ + fast_ns;
  uint64_t next_slow = slow_.empty() ? UINT64_MAX : start_ns_ + slow_ns;
  std::unique_lock lock(mu_);
  while (!stop_) {
    const uint64_t next = std::min(next_fast, next_slow);
    cv_.wait_until(lock, Clock::time_point(std::chrono::nanoseconds(next)),
                   [this] { return stop_; });
    if (stop_) break;
    const uint64_t now = MonotonicNs();
    // A late wake-up skips the missed ticks rather than sampling in a burst.
    if (now >= next_fast) {
      SampleFast(now);
      next_fast += fast_ns * ((now - next_fast) / fast_ns + 1);
    }
    if (now >= next_slow) {
      SampleSlow(now);
      next_slow += slow_ns * ((now - next_slow) / slow_ns + 1);
    }
  }
}

void GuestSampler::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
  const uint64_t now = MonotonicNs();
  if (config_.slow_ms > 0 && now - last_slow_ns_ >= uint64_t(config_.slow_ms) * 500000)
    SampleSlow(now);
}

std::vector<Timeline> GuestSampler::Timelines(uint64_t io_start_ns) const {
  std::vector<Timeline> out;
  for (const auto* group : {&fast_, &slow_})
    for (const Running& r : *group)
      for (const Series& s : r.probe->series()) {
        Timeline t{.name = s.name, .unit = s.unit, .t_s = {}, .value = s.value};
        t.t_s.reserve(s.ns.size());
        for (uint64_t ns : s.ns)
          t.t_s.push_back(ns > io_start_ns ? double(ns - io_start_ns) / 1e9 : 0.0);
        out.push_back(std::move(t));
      }
  return out;
}

BlkMqShape ReadBlkMqShape(const std::string& device, const TextSource& source) {
  BlkMqShape shape;
  // A partition has no mq/ of its own; its sysfs directory sits inside its disk's.
  for (const std::string& dir :
       {"/sys/class/block/" + device + "/mq", "/sys/class/block/" + device + "/../mq"}) {
    const auto entries = source.List(dir);
    if (!entries || entries->empty()) continue;
    shape.nr_hw_queues = uint32_t(entries->size());
    std::string error;
    if (auto file = source.Open(dir + "/0/nr_tags", &error))
      if (auto text = file->Read()) {
        uint32_t tags = 0;
        const char* end = text->data() + text->size();
        while (end > text->data() && (end[-1] == '\n' || end[-1] == ' ')) --end;
        const auto [p, ec] = std::from_chars(text->data(), end, tags);
        if (ec == std::errc() && p == end) shape.nr_tags = tags;
      }
    break;
  }
  return shape;
}

}  // namespace storbed

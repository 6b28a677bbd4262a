// The guest samplers of one IO phase: a thread that reads the fast probes (the target's
// /sys inflight) every inflight_sample_ms and the slow ones (diskstats, meminfo,
// vmstat, per-CPU iowait) every stats_sample_ms, from just before the first IO until
// Stop(). A probe whose file is missing or malformed stops with a warning; the others
// go on. On bare metal the same probes read the host's files.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sampler_probes.h"
#include "text_source.h"
#include "timeline.h"

namespace storbed {

struct SamplerConfig {
  std::optional<std::string> device;  // kernel name of the target's device; none: skip its probes
  uint32_t fast_ms = 10;              // 0 = fast probes off
  uint32_t slow_ms = 100;             // 0 = slow probes off
};

class GuestSampler {
 public:
  // Opens every enabled probe's file (a failure is a warning, not an error).
  GuestSampler(const SamplerConfig& config, const TextSource& source);
  ~GuestSampler();
  GuestSampler(const GuestSampler&) = delete;
  GuestSampler& operator=(const GuestSampler&) = delete;

  // Takes the baseline reads now, then starts the sampling thread (none when every
  // probe is off).
  void Start();
  // Stops and joins the thread; takes a last slow sample when at least half a period
  // has passed since the previous one, so the phase's tail is covered.
  void Stop();

  // The recorded series as timelines with t_s relative to io_start_ns (a sample taken
  // before it, which only the thread's start can give, is put at 0).
  std::vector<Timeline> Timelines(uint64_t io_start_ns) const;
  const std::vector<std::string>& warnings() const { return warnings_; }

  // One round of the fast or slow probes at now_ns; the thread calls these, tests too.
  void Baseline(uint64_t now_ns);
  void SampleFast(uint64_t now_ns) { SampleAll(fast_, now_ns, false); }
  void SampleSlow(uint64_t now_ns);

 private:
  struct Running {
    std::string name;
    std::unique_ptr<Probe> probe;
    bool stopped = false;
  };
  void SampleAll(std::vector<Running>& probes, uint64_t now_ns, bool baseline);
  void Loop();

  SamplerConfig config_;
  std::vector<Running> fast_, slow_;
  std::vector<std::string> warnings_;
  uint64_t start_ns_ = 0, last_slow_ns_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

// The target device's blk-mq shape: the number of /sys/class/block/X/mq/* hardware
// queues and mq/0/nr_tags (a partition uses its disk's). 0 when unknown.
struct BlkMqShape {
  uint32_t nr_hw_queues = 0;
  uint32_t nr_tags = 0;
};
BlkMqShape ReadBlkMqShape(const std::string& device, const TextSource& source);

}  // namespace storbed

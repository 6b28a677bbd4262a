// Host samplers beside one guest job (every registered HostSampler: QEMU block stats,
// virtqueue inuse, QEMU thread CPU, the host device under the backing, ...), every
// `period` (the fast ones, the virtqueue, every `fast_period`) on the host's
// CLOCK_MONOTONIC, on one background thread. Summarize() turns
// the samples bracketing a job's IO window into ladder rungs, figures and timelines.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend/machine_spec.h"
#include "sampling/host_sampler.h"
// The samplers' own types, as before the HostSampler table (tests and callers use them).
#include "sampling/qmp_blockstats.h"
#include "sampling/virtqueue_status.h"

namespace storbed {

// The source for `disk` of a running machine; QMP commands time out after 2 s. A machine
// on another host has no pid and no backing to sample here.
SamplerSource SourceFromMachine(Machine& machine, const DiskSpec& disk);

class JobSampler {
 public:
  // Makes one of every registered sampler (HostSamplers()).
  explicit JobSampler(SamplerSource source, JobSamplerOptions options = {});
  ~JobSampler();  // Stop()s
  JobSampler(const JobSampler&) = delete;
  JobSampler& operator=(const JobSampler&) = delete;

  // Starts every sampler (resolving virtqueues, the host device...), takes the first
  // sample at once (so a window starting now is bracketed) and starts the thread. Never
  // throws for a sampler that cannot work: it records why and the others go on.
  void Start();
  // Stops and joins the thread, then takes a last sample (so a window ending now is
  // bracketed). Idempotent.
  void Stop();
  // One round of every live sampler, now (the thread calls this; tests call it directly).
  void SampleOnce();

  // Rungs, CPU and timelines for [window_start_ns, window_end_ns] (host CLOCK_MONOTONIC),
  // from the last sample at or before the start to the first at or after the end.
  HostLayers Summarize(uint64_t window_start_ns, uint64_t window_end_ns) const;

  std::vector<std::string> Warnings() const;

 private:
  struct Slot {
    std::string name;
    std::unique_ptr<HostSampler> sampler;
    bool alive = false;
    bool fast = false;  // HostSamplerEntry::fast
  };
  enum class Which { All, Fast };

  void Loop();
  void Sample(Which which);

  JobSamplerOptions opt_;
  std::vector<Slot> samplers_;
  bool started_ = false, stopped_ = false;

  // Serialises the samplers' Sample() and Summarize(): a Summarize() during the job waits
  // for the round under way.
  mutable std::mutex sample_mu_;
  mutable std::mutex mu_;  // guards everything below; taken after sample_mu_
  std::condition_variable wake_;
  bool stop_requested_ = false;
  std::vector<std::string> warnings_;
  std::thread thread_;
};

}  // namespace storbed

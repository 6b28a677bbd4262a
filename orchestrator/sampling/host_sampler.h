// One interface for the host samplers beside a guest job (QEMU block stats, virtqueues,
// QEMU threads, host device, host CPU): Start() resolves what to look at, Sample(now)
// takes one reading, Summarize(window, layers) writes the sampler's part of HostLayers.
// Each sampler lives in its own host_sampler_*.cc and registers itself by name from a
// static registrar; JobSampler runs every registered one on its thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/block_counters.h"
#include "backend/machine_spec.h"
#include "backend/qmp_executor.h"
#include "ladder.h"
#include "sampling/host_device.h"
#include "sampling/qemu_threads.h"
#include "timeline.h"

namespace storbed {

// What the samplers look at. An empty qmp turns the QMP samplers off; pid <= 0 the
// thread sampler; an empty backing the host device sampler.
struct SamplerSource {
  QmpExecutor qmp;
  int qemu_pid = -1;
  std::string device_id;  // QEMU device id, "dev-d0"
  Bus bus = Bus::VirtioBlk;
  std::string backing;  // the disk's backing file or device on the host
  // When set, the QEMU block layer counters come from here (libvirt's bulk stats) and
  // not from QMP query-blockstats; block_source names it in the ladder.
  std::function<BlockCounters()> block_counters;
  std::string block_source;
};

struct JobSamplerOptions {
  std::chrono::milliseconds period{100};
  // The period of the samplers registered as fast (point samples, the virtqueue), when
  // shorter than `period`.
  std::chrono::milliseconds fast_period{10};
  std::string proc_root = "/proc";
  std::string sysfs_root = "/sys";
  // Fakes for tests; null means the real thing.
  std::shared_ptr<ThreadReader> threads;        // ProcThreadReader(proc_root)
  StatDeviceFn stat;                            // StatDevice
  std::function<std::string()> read_diskstats;  // reads <proc_root>/diskstats
  std::function<uint64_t()> now_ns;             // HostMonotonicNs
  long clk_tck = 0;                             // sysconf(_SC_CLK_TCK)
};

struct HostLayers {
  LayerStats virtqueue, qemu_block, host_device;
  std::optional<uint64_t> qemu_flushes, host_flushes;
  nlohmann::json qemu_thread_cpu = nlohmann::json::object();  // class -> %cpu (100 = 1 CPU)
  // Further figures by key ("host_cpu"), written by the samplers that own them; they sit
  // beside qemu_thread_cpu in this JSON and in the run record's `host` object.
  nlohmann::json figures = nlohmann::json::object();
  std::vector<Timeline> timelines;  // t_s relative to window_start
  std::vector<std::string> warnings;
};
void to_json(nlohmann::json& j, const HostLayers& h);

// A job's IO window on the host's CLOCK_MONOTONIC.
struct SampleWindow {
  uint64_t start_ns = 0, end_ns = 0;
  // Seconds from the window's start to `t_ns` (negative before it).
  double Rel(uint64_t t_ns) const;
};

// "1.234": seconds from `from_ns` to `to_ns`, three decimals.
std::string Span(uint64_t from_ns, uint64_t to_ns);
// The bracketing rule every windowed sampler uses: the index of the last sample at or
// before `start` (else the first) and of the first at or after `end` (else the last).
// nullopt when they do not make an interval. S has a `t_ns`.
template <typename S>
std::optional<std::pair<size_t, size_t>> Bracket(const std::vector<S>& v, uint64_t start,
                                                 uint64_t end) {
  if (v.size() < 2) return std::nullopt;
  size_t b = 0, a = v.size() - 1;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].t_ns <= start) b = i;
  }
  for (size_t i = v.size(); i-- > 0;) {
    if (v[i].t_ns >= end) a = i;
  }
  if (a <= b || v[a].t_ns <= v[b].t_ns) return std::nullopt;
  return std::make_pair(b, a);
}

// "d0" for "dev-d0" (QEMU backend) and "ua-d0" (libvirt user alias).
std::string ShortDeviceId(const std::string& device_id);
LayerStats UnavailableLayer(const char* layer, std::string source, std::string reason);
// The bound (not a statistical interval) on a depth from two counter samples that span
// `span_ns` around a window of `window_ns`: the requests outside the window but inside the
// span can move the average by up to its value times the extra share, so that is the half
// width.
void SetSpanBound(LayerStats& l, uint64_t span_ns, uint64_t window_ns);

using NowFn = std::function<uint64_t()>;

// One host sampler. JobSampler calls Start() once, then Sample() from one thread at a
// time, and Summarize() never at the same time as Sample().
class HostSampler {
 public:
  virtual ~HostSampler() = default;
  // The <what> of "<what> sampler stopped: <why>".
  virtual std::string Label() const = 0;
  // Resolves what to sample. False when there is nothing to (Summarize then writes why).
  // Never throws.
  virtual bool Start() = 0;
  // Takes one reading stamped by `now` (host CLOCK_MONOTONIC ns). Throws std::exception
  // with the reason when the sampler cannot go on; it is then not called again.
  virtual void Sample(const NowFn& now) = 0;
  // Writes this sampler's rungs, figures, timelines and warnings for `window`.
  virtual void Summarize(const SampleWindow& window, HostLayers* layers) const = 0;
};

using HostSamplerFactory =
    std::function<std::unique_ptr<HostSampler>(const SamplerSource&, const JobSamplerOptions&)>;
struct HostSamplerEntry {
  std::string name;
  int order = 0;  // JobSampler samples and summarises in this order
  HostSamplerFactory make;
  // Sampled every fast_period, not every period: a point sampler needs many samples for
  // a tight interval, where a counter sampler needs only two around the window.
  bool fast = false;
};

// Adds a sampler to the table; returns true, for a `const bool k<Name>SamplerRegistered = ...`
// in the sampler's file. Throws std::logic_error for a name registered twice.
bool RegisterHostSampler(HostSamplerEntry entry);
// Every registered sampler, by order.
std::vector<HostSamplerEntry> HostSamplers();

}  // namespace storbed

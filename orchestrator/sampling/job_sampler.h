// Host samplers beside one guest job: QEMU block stats (L2 QEMU block), virtqueue inuse
// (L2 virtqueue), QEMU thread CPU by class and the host device under the backing (L3),
// every `period` on the host's CLOCK_MONOTONIC, on one background thread. Summarize()
// turns the samples bracketing a job's IO window into ladder rungs and timelines.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend/machine_spec.h"
#include "ladder.h"
#include "sampling/host_device.h"
#include "sampling/qemu_threads.h"
#include "sampling/qmp_blockstats.h"
#include "backend/qmp_executor.h"
#include "sampling/virtqueue_status.h"
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

// The source for `disk` of a running machine; QMP commands time out after 2 s. A machine
// on another host has no pid and no backing to sample here.
SamplerSource SourceFromMachine(Machine& machine, const DiskSpec& disk);

struct JobSamplerOptions {
  std::chrono::milliseconds period{100};
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
  std::vector<Timeline> timelines;                            // t_s relative to window_start
  std::vector<std::string> warnings;
};
void to_json(nlohmann::json& j, const HostLayers& h);

class JobSampler {
 public:
  explicit JobSampler(SamplerSource source, JobSamplerOptions options = {});
  ~JobSampler();  // Stop()s
  JobSampler(const JobSampler&) = delete;
  JobSampler& operator=(const JobSampler&) = delete;

  // Resolves the virtqueues and the host device, takes the first sample at once (so a
  // window starting now is bracketed) and starts the thread. Never throws for a sampler
  // that cannot work: it records why and the others go on.
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
  struct BlockSample {
    uint64_t t_ns;
    BlockCounters c;
  };
  struct QueueSample {
    uint64_t t_ns;
    uint64_t inuse;
  };
  struct ThreadSample {
    uint64_t t_ns;
    ThreadSnapshot s;
  };
  struct DiskSample {
    uint64_t t_ns;
    std::string lines;
  };  // the chain's diskstats lines

  void Loop();
  void SampleBlock();
  void SampleQueues();
  void SampleThreads();
  void SampleDisk();
  // Records "<what> sampler stopped: <why>" and turns that sampler off.
  void Fail(bool* alive, const std::string& what, const std::string& why);
  uint64_t Now() const;
  std::string ShortId() const;

  SamplerSource src_;
  JobSamplerOptions opt_;
  VirtqueueTarget vq_target_;
  HostDeviceChain chain_;
  bool started_ = false, stopped_ = false;
  bool block_alive_ = false, queues_alive_ = false, threads_alive_ = false, disk_alive_ = false;

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable wake_;
  bool stop_requested_ = false;
  std::vector<BlockSample> block_;
  std::vector<QueueSample> queues_;
  std::vector<ThreadSample> threads_;
  std::vector<DiskSample> disk_;
  std::vector<std::string> warnings_;
  std::thread thread_;
};

}  // namespace storbed

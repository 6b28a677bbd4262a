#include "sampling/job_sampler.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "backend/qmp_client.h"
#include "sampling/clock_sync.h"

namespace storbed {
namespace {

using nlohmann::json;

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

// Index of the last sample at or before `t` (else the first), and of the first at or
// after `end` (else the last). nullopt when they do not make an interval.
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

double Rel(uint64_t t, uint64_t start) {
  return (static_cast<double>(t) - static_cast<double>(start)) / 1e9;
}

std::string Span(uint64_t from, uint64_t to) {
  std::ostringstream s;
  s.precision(3);
  s << std::fixed << (static_cast<double>(to - from) / 1e9);
  return s.str();
}

LayerStats Unavailable(const char* layer, std::string source, std::string reason) {
  LayerStats l;
  l.layer = layer;
  l.source = std::move(source);
  l.reason = std::move(reason);
  return l;
}

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

void to_json(json& j, const HostLayers& h) {
  j = json{{"virtqueue", h.virtqueue},
           {"qemu_block", h.qemu_block},
           {"host_device", h.host_device},
           {"qemu_flushes", h.qemu_flushes ? json(*h.qemu_flushes) : json()},
           {"host_flushes", h.host_flushes ? json(*h.host_flushes) : json()},
           {"qemu_thread_cpu", h.qemu_thread_cpu},
           {"timelines", h.timelines},
           {"warnings", h.warnings}};
}

JobSampler::JobSampler(SamplerSource source, JobSamplerOptions options)
    : src_(std::move(source)), opt_(std::move(options)) {
  if (!opt_.threads) opt_.threads = std::make_shared<ProcThreadReader>(opt_.proc_root);
  if (!opt_.stat) opt_.stat = StatDevice;
  if (!opt_.read_diskstats) {
    opt_.read_diskstats = [path = opt_.proc_root + "/diskstats"] { return ReadWholeFile(path); };
  }
  if (!opt_.now_ns) opt_.now_ns = HostMonotonicNs;
  if (opt_.clk_tck <= 0) opt_.clk_tck = ::sysconf(_SC_CLK_TCK);
  if (opt_.period.count() <= 0) opt_.period = std::chrono::milliseconds(100);
}

JobSampler::~JobSampler() { Stop(); }

uint64_t JobSampler::Now() const { return opt_.now_ns(); }

std::string JobSampler::ShortId() const {
  // "dev-d0" (QEMU backend) and "ua-d0" (libvirt user alias) both name disk d0.
  const std::string& id = src_.device_id;
  for (const char* prefix : {"dev-", "ua-"})
    if (id.rfind(prefix, 0) == 0) return id.substr(std::string(prefix).size());
  return id;
}

void JobSampler::Fail(bool* alive, const std::string& what, const std::string& why) {
  *alive = false;
  std::lock_guard<std::mutex> lock(mu_);
  warnings_.push_back(what + " sampler stopped: " + why);
}

void JobSampler::Start() {
  if (started_) return;
  started_ = true;
  block_alive_ = static_cast<bool>(src_.qmp) || static_cast<bool>(src_.block_counters);
  threads_alive_ = src_.qemu_pid > 0;
  if (src_.qmp) {
    try {
      vq_target_ = ResolveVirtqueues(src_.qmp, src_.device_id, src_.bus);
    } catch (const std::exception& e) {
      vq_target_ = VirtqueueTarget{};
      vq_target_.reason = e.what();
    }
    queues_alive_ = vq_target_.available;
  } else {
    vq_target_.reason = "no QMP connection";
  }
  if (!src_.backing.empty()) {
    chain_ = ResolveHostDevice(src_.backing, opt_.sysfs_root, opt_.stat);
    disk_alive_ = chain_.available;
  } else {
    chain_.reason = "no device: no backing path given";
  }
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
  auto next = std::chrono::steady_clock::now() + opt_.period;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (wake_.wait_until(lock, next, [this] { return stop_requested_; })) return;
    }
    SampleOnce();
    // Fixed-rate schedule; after a stall (a slow QMP reply) skip the missed ticks.
    next += opt_.period;
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now + opt_.period;
  }
}

void JobSampler::SampleOnce() {
  if (block_alive_) SampleBlock();
  if (queues_alive_) SampleQueues();
  if (threads_alive_) SampleThreads();
  if (disk_alive_) SampleDisk();
}

void JobSampler::SampleBlock() {
  if (src_.block_counters) {
    try {
      const uint64_t t0 = Now();
      BlockCounters c = src_.block_counters();
      const uint64_t t1 = Now();
      std::lock_guard<std::mutex> lock(mu_);
      block_.push_back({t0 + (t1 - t0) / 2, std::move(c)});
    } catch (const std::exception& e) {
      Fail(&block_alive_, src_.block_source, e.what());
    }
    return;
  }
  try {
    const uint64_t t0 = Now();
    json reply = src_.qmp("query-blockstats", json::object());
    const uint64_t t1 = Now();
    std::vector<BlockCounters> all = ParseBlockstats(reply);
    const BlockCounters* c = FindBlockCounters(all, src_.device_id);
    if (c == nullptr) {
      return Fail(&block_alive_, "query-blockstats",
                  "no entry for device " + src_.device_id + " in " + reply.dump());
    }
    std::lock_guard<std::mutex> lock(mu_);
    block_.push_back({t0 + (t1 - t0) / 2, *c});
  } catch (const BlockstatsError& e) {
    Fail(&block_alive_, "query-blockstats", std::string(e.what()) + "; reply: " + e.raw());
  } catch (const std::exception& e) {
    Fail(&block_alive_, "query-blockstats", e.what());
  }
}

void JobSampler::SampleQueues() {
  try {
    const uint64_t t0 = Now();
    VirtqueueSample s = SampleVirtqueues(src_.qmp, vq_target_);
    const uint64_t t1 = Now();
    std::lock_guard<std::mutex> lock(mu_);
    queues_.push_back({t0 + (t1 - t0) / 2, s.inuse_total});
  } catch (const std::exception& e) {
    Fail(&queues_alive_, "x-query-virtio-queue-status", e.what());
  }
}

void JobSampler::SampleThreads() {
  try {
    const uint64_t t = Now();
    ThreadSnapshot s = ParseThreads(src_.qemu_pid, opt_.threads->ReadThreads(src_.qemu_pid));
    std::lock_guard<std::mutex> lock(mu_);
    threads_.push_back({t, std::move(s)});
  } catch (const std::exception& e) {
    Fail(&threads_alive_, "QEMU thread", e.what());
  }
}

void JobSampler::SampleDisk() {
  try {
    const uint64_t t = Now();
    std::string lines = FilterDiskstats(opt_.read_diskstats(), chain_.devices);
    std::lock_guard<std::mutex> lock(mu_);
    disk_.push_back({t, std::move(lines)});
  } catch (const std::exception& e) {
    Fail(&disk_alive_, "host /proc/diskstats", e.what());
  }
}

std::vector<std::string> JobSampler::Warnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return warnings_;
}

HostLayers JobSampler::Summarize(uint64_t start, uint64_t end) const {
  std::lock_guard<std::mutex> lock(mu_);
  HostLayers h;
  h.warnings = warnings_;
  const std::string id = ShortId();
  const std::string window = " window of " + Span(start, std::max(start, end)) + " s";

  // L2 QEMU block.
  const std::string block_source = src_.block_counters
                                       ? src_.block_source
                                       : "query-blockstats " + src_.device_id;
  if (auto br = Bracket(block_, start, end)) {
    const BlockSample& b = block_[br->first];
    const BlockSample& a = block_[br->second];
    BlockDelta d = DiffBlockCounters(b.c, a.c, a.t_ns - b.t_ns);
    h.qemu_block = QemuBlockLayer(d, a.c, block_source);
    if (d.valid) h.qemu_flushes = d.flushes;
    h.qemu_block.notes.push_back("samples span " + Span(b.t_ns, a.t_ns) + " s around the" + window);
    Timeline depth{.name = "qemu." + id + ".depth", .unit = "requests", .t_s = {}, .value = {}};
    Timeline iops{.name = "qemu." + id + ".iops", .unit = "IO/s", .t_s = {}, .value = {}};
    for (size_t i = br->first + 1; i <= br->second; ++i) {
      BlockDelta s =
          DiffBlockCounters(block_[i - 1].c, block_[i].c, block_[i].t_ns - block_[i - 1].t_ns);
      if (!s.valid) continue;
      depth.Add(Rel(block_[i].t_ns, start), s.avg_depth);
      iops.Add(Rel(block_[i].t_ns, start), s.iops);
    }
    h.timelines.push_back(std::move(depth));
    h.timelines.push_back(std::move(iops));
  } else {
    h.qemu_block = Unavailable(kLayerQemuBlock, block_source,
                               src_.qmp || src_.block_counters
                                   ? "fewer than two " + block_source + " samples around the window"
                                        : "no QMP connection");
  }

  // L2 virtqueue: point samples inside the window.
  const std::string vq_source = "x-query-virtio-queue-status " + src_.device_id;
  std::vector<double> qt, qv;
  Timeline inuse{.name = "virtqueue." + id + ".inuse", .unit = "requests", .t_s = {}, .value = {}};
  for (const QueueSample& q : queues_) {
    if (q.t_ns < start || q.t_ns > end) continue;
    qt.push_back(Rel(q.t_ns, start));
    qv.push_back(static_cast<double>(q.inuse));
    inuse.Add(qt.back(), qv.back());
  }
  h.virtqueue = VirtqueueLayer(vq_target_, qt, qv, vq_source);
  if (vq_target_.available) h.timelines.push_back(std::move(inuse));

  // QEMU threads.
  if (auto tr = Bracket(threads_, start, end)) {
    const ThreadSample& b = threads_[tr->first];
    const ThreadSample& a = threads_[tr->second];
    std::optional<std::string> warning;
    auto cpu = CpuPercentByClass(b.s, a.s, static_cast<double>(a.t_ns - b.t_ns) / 1e9, opt_.clk_tck,
                                 &warning);
    for (const auto& [cls, pct] : cpu) h.qemu_thread_cpu[cls] = pct;
    if (warning) h.warnings.push_back(*warning);
    for (size_t i = tr->first + 1; i <= tr->second; ++i) {
      const double dt = static_cast<double>(threads_[i].t_ns - threads_[i - 1].t_ns) / 1e9;
      auto step = CpuPercentByClass(threads_[i - 1].s, threads_[i].s, dt, opt_.clk_tck);
      for (const auto& [cls, pct] : step) {
        const std::string name = "qemu.threads." + cls + ".cpu";
        auto it = std::find_if(h.timelines.begin(), h.timelines.end(),
                               [&](const Timeline& t) { return t.name == name; });
        if (it == h.timelines.end()) {
          h.timelines.push_back(Timeline{.name = name, .unit = "%", .t_s = {}, .value = {}});
          it = h.timelines.end() - 1;
        }
        it->Add(Rel(threads_[i].t_ns, start), pct);
      }
    }
  }

  // L3 host device.
  if (!chain_.available) {
    h.host_device = Unavailable(kLayerHostDevice, "/proc/diskstats", chain_.reason);
  } else if (auto dr = Bracket(disk_, start, end)) {
    const DiskSample& b = disk_[dr->first];
    const DiskSample& a = disk_[dr->second];
    h.host_device =
        HostDeviceLayer(chain_, b.lines, a.lines, static_cast<double>(a.t_ns - b.t_ns) / 1e9);
    h.host_flushes = HostFlushes(chain_, b.lines, a.lines);
    std::string devs;
    for (const std::string& d : chain_.devices) devs += (devs.empty() ? "" : "+") + d;
    Timeline depth{.name = "host." + devs + ".depth", .unit = "requests", .t_s = {}, .value = {}};
    for (size_t i = dr->first + 1; i <= dr->second; ++i) {
      LayerStats s = HostDeviceLayer(chain_, disk_[i - 1].lines, disk_[i].lines,
                                     static_cast<double>(disk_[i].t_ns - disk_[i - 1].t_ns) / 1e9);
      if (s.available) depth.Add(Rel(disk_[i].t_ns, start), s.avg_depth);
    }
    h.timelines.push_back(std::move(depth));
  } else {
    h.host_device = Unavailable(kLayerHostDevice, "/proc/diskstats",
                                "fewer than two host diskstats samples around "
                                "the window");
  }
  return h;
}

}  // namespace storbed

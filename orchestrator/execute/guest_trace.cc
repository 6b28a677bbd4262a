#include "execute/guest_trace.h"

#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backend/disk_driver.h"
#include "backend/interrupt.h"
#include "execute/trace_record.h"
#include "tracefs_session.h"
#include "tracing/qemu_trace_log.h"

namespace storbed {
namespace {

constexpr std::chrono::seconds kQmpTimeout{10};

int64_t Now(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// CLOCK_MONOTONIC - CLOCK_REALTIME: QEMU's log stamps are wall-clock microseconds.
int64_t RealtimeToMono() {
  const int64_t m1 = Now(CLOCK_MONOTONIC), r = Now(CLOCK_REALTIME), m2 = Now(CLOCK_MONOTONIC);
  return (m1 + m2) / 2 - r;
}

// QEMU's timer slack (/proc/PID/timerslack_ns, its main thread's; the threads it starts
// inherit it): how late the kernel may wake a thread that sleeps until a timer, as
// null-co's latency does. nullopt when /proc does not say.
std::optional<double> QemuTimerSlackUs(int pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/timerslack_ns");
  uint64_t ns = 0;
  if (!(in >> ns)) return std::nullopt;
  return double(ns) / 1000;
}

std::vector<AgentTracedIo> FetchAgentIos(Machine& machine, const std::function<void()>& check) {
  std::vector<AgentTracedIo> ios;
  size_t total = 0;
  do {
    const Message reply =
        machine.Agent().Call(TraceFetchRequest{ios.size()}, std::chrono::seconds(60), check);
    const auto* chunk = std::get_if<TraceChunkReply>(&reply);
    if (!chunk) {
      const auto* e = std::get_if<ErrorReply>(&reply);
      throw std::runtime_error("the agent answered trace_fetch with '" + MessageType(reply) +
                               "'" + (e ? ": " + e->message : ""));
    }
    const TracedIoChunkView view = ParseTracedIoChunk(chunk->chunk);
    if (view.from != ios.size()) throw IoTraceChunkError("the agent sent IOs from the wrong place");
    total = view.total;
    if (view.ios.empty() && ios.size() < total)
      throw IoTraceChunkError("the agent sent an empty chunk before the end");
    ios.insert(ios.end(), view.ios.begin(), view.ios.end());
  } while (ios.size() < total);
  return ios;
}

}  // namespace

GuestJobTrace::GuestJobTrace(RunContext& ctx, Machine& machine, const DiskSpec& disk,
                             const JobSpec& job, const std::string& run_id, uint32_t lba_bytes)
    : ctx_(ctx),
      machine_(machine),
      disk_(disk),
      run_id_(run_id),
      lba_bytes_(lba_bytes),
      detail_(job.trace_detail) {
  if (!machine_.OnThisHost()) {
    untraced_.push_back({"QEMU", "the machine runs on another host, whose QEMU log storbed "
                                 "does not read"});
    untraced_.push_back({"host device", "the machine runs on another host"});
    return;
  }
  if (disk.bus == Bus::VirtioBlk)
    bus_ = QemuBus::VirtioBlk;
  else if (disk.bus == Bus::Nvme && disk.vfio_host.empty())
    bus_ = QemuBus::Nvme;
  else
    untraced_.push_back({"QEMU", disk.vfio_host.empty()
                                     ? "QEMU's " + ToString(disk.bus) +
                                           " events are not joined: the guest's half only"
                                     : "the NVMe device is passed through: QEMU does not see "
                                       "its requests"});
  if (bus_) StartQemu();
  StartHostDevice();
}

void GuestJobTrace::StartQemu() {
  qemu_log_ = ctx_.options.work_dir + "/storbed-qemu-trace-" + std::to_string(::getpid()) + "-" +
              run_id_ + ".log";
  try {
    const QmpExecutor qmp = machine_.Qmp(kQmpTimeout);
    qmp("human-monitor-command", {{"command-line", "logfile " + qemu_log_}});
    qemu_on_ = true;
    for (const std::string& name : QemuTraceEventNames(*bus_, detail_))
      qmp("trace-event-set-state", {{"name", name}, {"enable", true}});
    realtime_to_mono_ns_ = RealtimeToMono();
  } catch (const std::exception& e) {
    QemuOff();
    untraced_.push_back({"QEMU", std::string("its trace events could not be turned on: ") + e.what()});
    bus_.reset();
  }
}

void GuestJobTrace::StartHostDevice() {
  if (!DiskDriverOf(disk_.driver).has_storage) {
    untraced_.push_back({"host device", disk_.driver + " has no device: QEMU completes each "
                                        "request itself after null_latency"});
    return;
  }
  if (!disk_.vfio_host.empty()) return;  // the guest's block layer is the device's
  if (disk_.cache != CacheMode::None) {
    untraced_.push_back({"host device", "the backing goes through the host's page cache "
                                        "(cache writeback): its device requests are not the "
                                        "guest's"});
    return;
  }
  // Without QEMU's own submissions, a request's bytes in the backing are its bytes on the
  // guest's disk: so for raw only.
  if (!detail_ && disk_.format != "raw") {
    untraced_.push_back({"host device", "a " + disk_.format + " backing maps the guest's offsets "
                                        "itself: trace_detail adds QEMU's submissions, which "
                                        "name the file's"});
    return;
  }
  backing_ = MapBacking(disk_.backing);
  if (!backing_.available) {
    untraced_.push_back({"host device", backing_.reason});
    return;
  }
  try {
    host_ = HostBlockTrace::Start(
        {.major = backing_.major,
         .minor = backing_.minor,
         .buffer_kb_per_cpu = TraceBufferKbPerCpu(MemAvailableKb(), unsigned(sysconf(_SC_NPROCESSORS_ONLN))),
         .private_mount = true});
    host_->Begin();
  } catch (const std::exception& e) {
    host_.reset();
    untraced_.push_back({"host device", std::string("not traced: ") + e.what()});
  }
}

void GuestJobTrace::QemuOff() noexcept {
  if (!qemu_on_) return;
  qemu_on_ = false;
  try {
    const QmpExecutor qmp = machine_.Qmp(kQmpTimeout);
    for (const std::string& name : QemuTraceEventNames(bus_.value_or(QemuBus::VirtioBlk), detail_))
      qmp("trace-event-set-state", {{"name", name}, {"enable", false}});
    qmp("human-monitor-command", {{"command-line", "logfile /dev/null"}});
  } catch (const std::exception&) {
    // A machine that went away took its events with it.
  }
}

GuestJobTrace::~GuestJobTrace() {
  QemuOff();
  host_.reset();
  if (!qemu_log_.empty()) {
    std::error_code ec;
    std::filesystem::remove(qemu_log_, ec);
  }
}

void GuestJobTrace::Stop() {
  QemuOff();
  if (host_) {
    try {
      host_capture_ = host_->Stop();
    } catch (const std::exception& e) {
      untraced_.push_back({"host device", std::string("its trace could not be read: ") + e.what()});
    }
    host_.reset();
  }
}

void GuestJobTrace::Finish(RunRecord& record, const ClockOffset& link,
                           const std::function<void()>& check) {
  const JobResult& r = *record.result;
  if (!r.io_trace) return;  // the agent traced nothing (it said why in its error)
  PathInputs in;
  in.agent = FetchAgentIos(machine_, check);
  in.guest = true;
  in.first_sector = r.io_trace->first_sector;
  in.link_offset_ns = link.offset_ns;
  in.link_uncertainty_ns = link.uncertainty_ns;
  in.realtime_to_mono_ns = realtime_to_mono_ns_;
  std::vector<std::string> warnings = warnings_;
  if (!r.io_trace->complete)
    warnings.push_back("the guest's block trace is cut short: " + r.io_trace->why_incomplete);
  if (bus_) {
    try {
      const QemuTraceRead read =
          ReadQemuTraceLog(qemu_log_, 0, QemuTraceEventNames(*bus_, detail_));
      if (!read.complete) warnings.push_back("QEMU's trace log is cut short: " + read.why_incomplete);
      if (read.events.empty() && read.other_lines > 0)
        warnings.push_back("QEMU's trace log has lines but no stamped events: is -msg "
                           "timestamp=on missing?");
      in.qemu = BuildQemuRequests(read.events, *bus_, lba_bytes_);
    } catch (const std::exception& e) {
      untraced_.push_back({"QEMU", std::string("its trace log could not be read: ") + e.what()});
    }
  }
  if (host_capture_) {
    if (!host_capture_->complete)
      warnings.push_back("the host device's trace is cut short: " + host_capture_->why_incomplete);
    in.host_device = std::move(host_capture_);
    in.backing = backing_;
  }
  PathJoin join = JoinPaths(in);
  join.untraced = untraced_;
  FigureInputs fi;
  fi.path = "guest (" + ToString(disk_.bus) + ")";
  const int64_t guest_to_host = -join.clock.offset_ns;
  fi.phase_start_ns = uint64_t(int64_t(r.io_start_ns) + guest_to_host);
  fi.phase_end_ns = uint64_t(int64_t(r.io_end_ns) + guest_to_host);
  fi.agent_layer = kLayerGuestBlock;
  if (r.block.available) {
    fi.agent_layer_counter = r.block.avg_queue_depth;
    fi.agent_counter_span_s = r.block.interval_s;
  }
  fi.histogram_p50_us = r.latency.p50_us;
  if (!DiskDriverOf(disk_.driver).has_storage) {
    fi.configured_backend_us = double(disk_.null_latency_ns) / 1000;
    fi.qemu_timer_slack_us = QemuTimerSlackUs(machine_.Pid());
  }
  StoreIoTrace(ctx_, record, join, fi, warnings);
}

}  // namespace storbed

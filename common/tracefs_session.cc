#include "tracefs_session.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "file_read.h"
#include "unique_fd.h"

namespace storbed {
namespace {

// Where tracefs lives when mounted, and where we mount it when it is not.
constexpr const char* kTracefsHome = "/sys/kernel/tracing";

std::string Errno(int err) { return std::strerror(err); }

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The setup's writes: a failure names the file and the errno text.
void WriteFile(const std::string& path, const std::string& value) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd) {
    const int err = errno;
    throw BlockTraceSetupError((err == EACCES || err == EPERM ? "tracing needs root: " : "") +
                               std::string("cannot open ") + path + ": " + Errno(err));
  }
  if (::write(fd.get(), value.data(), value.size()) != ssize_t(value.size()))
    throw BlockTraceSetupError("cannot write '" + value + "' to " + path + ": " + Errno(errno));
}

// The overrun, commit overrun and dropped events counts of per_cpu/cpuN/stats.
uint64_t LostEvents(const std::string& instance) {
  uint64_t lost = 0;
  std::error_code ec;
  for (const auto& cpu : std::filesystem::directory_iterator(instance + "/per_cpu", ec)) {
    std::istringstream stats(ReadFileOrEmpty(cpu.path().string() + "/stats"));
    std::string line;
    while (std::getline(stats, line)) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string key = line.substr(0, colon);
      if (key == "overrun" || key == "commit overrun" || key == "dropped events")
        lost += std::strtoull(line.c_str() + colon + 1, nullptr, 10);
    }
  }
  return lost;
}

// Reads `path` line by line into capture.events; a line that does not parse makes the
// capture incomplete (named), never a shorter event.
void ReadTrace(const std::string& path, BlockTraceCapture& capture,
               std::vector<TraceMarker>& markers) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw BlockTraceSetupError("cannot read " + path + ": " + Errno(errno));
  std::string pending;
  std::vector<char> buf(1 << 20);
  auto take = [&](std::string_view line) {
    try {
      if (auto e = ParseBlockEventLine(line))
        capture.events.push_back(*e);
      else if (auto m = ParseTraceMarkerLine(line))
        markers.push_back(std::move(*m));
    } catch (const BlockTraceParseError& e) {
      if (capture.complete) capture.why_incomplete = e.what();
      capture.complete = false;
    }
  };
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw BlockTraceSetupError("cannot read " + path + ": " + Errno(errno));
    if (n == 0) break;
    pending.append(buf.data(), size_t(n));
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
      take(std::string_view(pending).substr(start, nl - start));
    pending.erase(0, start);
  }
  if (!pending.empty()) take(pending);  // a last line without its newline: cut, or whole
}

std::atomic<unsigned> instance_counter{0};

constexpr const char* kMarkerPrefix = "storbed-sync ";
constexpr int kMarkersPerCpu = 8;

uint64_t MonotonicNow() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The CPUs the calling thread may run on.
std::vector<int> ReachableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace

TraceClock ChooseTraceClock(TraceClock asked, const std::string& clocksource,
                            bool every_cpu_reachable) {
  if (asked != TraceClock::Auto) return asked;
  const bool read_traps = clocksource == "hpet" || clocksource == "acpi_pm";
  return read_traps && every_cpu_reachable ? TraceClock::Local : TraceClock::Mono;
}

uint64_t TraceBufferKbPerCpu(uint64_t mem_available_kb, unsigned cpus) {
  const uint64_t share = mem_available_kb / 16 / std::max(1u, cpus);
  return std::clamp<uint64_t>(share, 1024, 256 * 1024);
}

uint64_t MemAvailableKb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") return kb;
    in.ignore(256, '\n');
  }
  return 0;
}

std::string TracefsInMounts(const std::string& mounts) {
  std::istringstream in(mounts);
  std::string device, dir, type, rest;
  std::string debugfs;
  while (in >> device >> dir >> type && std::getline(in, rest)) {
    if (type == "tracefs") return dir;
    if (type == "debugfs" && debugfs.empty()) debugfs = dir + "/tracing";
  }
  return !debugfs.empty() && Exists(debugfs + "/instances") ? debugfs : "";
}

size_t RemoveStaleTraceInstances(const std::string& instances_dir) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(instances_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("storbed-", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 8, nullptr, 10);
    if (pid <= 0 || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;
    removed += ::rmdir(entry.path().c_str()) == 0;
  }
  return removed;
}

std::unique_ptr<TracefsBlockTrace> TracefsBlockTrace::Start(const BlockTraceRequest& request) {
  std::unique_ptr<TracefsBlockTrace> t(new TracefsBlockTrace());
  t->request_ = request;
  // The calling thread's own mounts: an earlier job may have unshared them.
  t->root_ = TracefsInMounts(ReadFileOrEmpty("/proc/thread-self/mounts"));
  if (t->root_.empty()) {
    if (ReadFileOrEmpty("/proc/filesystems").find("\ttracefs") == std::string::npos)
      throw BlockTraceSetupError("no tracefs in this kernel (it needs CONFIG_TRACING)");
    if (request.private_mount) {
      // Our own mount namespace: the mount below is nobody else's and dies with us.
      if (::unshare(CLONE_NEWNS) != 0)
        throw BlockTraceSetupError("tracing needs root: unshare(CLONE_NEWNS) failed: " +
                                   Errno(errno));
      if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        throw BlockTraceSetupError("cannot make the mounts private: " + Errno(errno));
    }
    if (::mount("nodev", kTracefsHome, "tracefs", 0, nullptr) != 0) {
      const int err = errno;
      throw BlockTraceSetupError((err == EPERM ? "tracing needs root: " : "") +
                                 std::string("mounting tracefs on ") + kTracefsHome +
                                 " failed: " + Errno(err));
    }
    t->root_ = t->mounted_ = kTracefsHome;
  }
  try {
    for (int k = 0; k < kBlockEventKinds; ++k) {
      const std::string format =
          t->root_ + "/events/block/" + TracepointName(BlockEventKind(k)) + "/format";
      if (!Exists(format))
        throw BlockTraceSetupError("the kernel has no block tracepoints (no " + format + ")");
    }
    RemoveStaleTraceInstances(t->root_ + "/instances");
    const std::string instance = t->root_ + "/instances/storbed-" + std::to_string(::getpid()) +
                                 "-" + std::to_string(instance_counter++);
    if (::mkdir(instance.c_str(), 0700) != 0) {
      const int err = errno;
      throw BlockTraceSetupError((err == EACCES || err == EPERM ? "tracing needs root: " : "") +
                                 std::string("cannot make the trace instance ") + instance +
                                 ": " + Errno(err));
    }
    t->instance_ = instance;
    WriteFile(instance + "/tracing_on", "0");
    // Events are put on CLOCK_MONOTONIC, the clock the agent's engines time IOs with:
    // read at each event, or mapped from each CPU's own clock where reading it traps.
    const std::vector<int> cpus = ReachableCpus();
    t->clock_ = ChooseTraceClock(
        request.clock,
        Trimmed(
            ReadFileOrEmpty("/sys/devices/system/clocksource/clocksource0/current_clocksource")),
        long(cpus.size()) >= ::sysconf(_SC_NPROCESSORS_ONLN));
    if (t->clock_ == TraceClock::Local) t->cpus_ = cpus;
    WriteFile(instance + "/trace_clock", t->clock_ == TraceClock::Local ? "local" : "mono");
    WriteFile(instance + "/buffer_size_kb", std::to_string(request.buffer_kb_per_cpu));
    // Full buffer: drop the newest events (counted) rather than overwrite the oldest.
    WriteFile(instance + "/options/overwrite", "0");
    const std::string filter = "dev == " + std::to_string(KernelDev(request.major, request.minor));
    for (int k = 0; k < kBlockEventKinds; ++k) {
      const std::string event = instance + "/events/block/" + TracepointName(BlockEventKind(k));
      WriteFile(event + "/filter", filter);
      WriteFile(event + "/enable", "1");
    }
  } catch (...) {
    t->Remove();
    throw;
  }
  return t;
}

TracefsBlockTrace::~TracefsBlockTrace() { Remove(); }

void TracefsBlockTrace::Begin() {
  // Emptying the buffer also zeroes its lost-event counters.
  WriteFile(instance_ + "/trace", "");
  WriteFile(instance_ + "/tracing_on", "1");
  if (clock_ != TraceClock::Local) return;
  markers_.clear();
  const std::string problem = WriteClockMarkers();
  if (!problem.empty()) throw BlockTraceSetupError(problem);
  markers_before_ = markers_.size();
}

std::string TracefsBlockTrace::WriteClockMarkers() {
  const std::string path = instance_ + "/trace_marker";
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) return "cannot open " + path + ": " + Errno(errno);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) != 0)
    return std::string("cannot read the thread's CPUs: ") + Errno(errno);
  std::string problem;
  for (const int cpu : cpus_) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (::sched_setaffinity(0, sizeof one, &one) != 0) {
      problem = "cannot run on CPU " + std::to_string(cpu) + " to mark its trace clock: " +
                Errno(errno);
      break;
    }
    for (int k = 0; k < kMarkersPerCpu && problem.empty(); ++k) {
      const std::string text = kMarkerPrefix + std::to_string(markers_.size());
      ClockSyncSample s;
      s.cpu = cpu;
      s.mono_before_ns = MonotonicNow();
      const ssize_t n = ::write(fd.get(), text.data(), text.size());
      s.mono_after_ns = MonotonicNow();
      if (n != ssize_t(text.size())) problem = "cannot write to " + path + ": " + Errno(errno);
      markers_.push_back(s);
    }
    if (!problem.empty()) break;
  }
  ::sched_setaffinity(0, sizeof mask, &mask);
  return problem;
}

void TracefsBlockTrace::MapOntoMonotonic(const std::vector<TraceMarker>& markers,
                                         BlockTraceCapture& c) {
  for (const TraceMarker& m : markers) {
    if (m.text.rfind(kMarkerPrefix, 0) != 0) continue;
    const size_t n = std::strtoull(m.text.c_str() + std::strlen(kMarkerPrefix), nullptr, 10);
    if (n >= markers_.size()) continue;
    markers_[n].trace_ns = m.time_ns;
    markers_[n].cpu = m.cpu;  // the CPU the trace saw it on
  }
  std::vector<ClockSyncSample> before, after;
  for (size_t i = 0; i < markers_.size(); ++i)
    if (markers_[i].trace_ns != 0) (i < markers_before_ ? before : after).push_back(markers_[i]);
  const TraceClockMap map = TraceClockMap::Fit(before, after);
  c.clock = "local";
  c.clock_uncertainty_ns = map.uncertainty_ns();
  size_t unmapped = 0;
  std::vector<BlockEvent> mapped;
  mapped.reserve(c.events.size());
  for (BlockEvent e : c.events) {
    const auto mono = map.ToMono(e.cpu, e.time_ns);
    if (!mono) {
      ++unmapped;
      continue;
    }
    e.time_ns = *mono;
    mapped.push_back(e);
  }
  c.events = std::move(mapped);
  if (unmapped == 0) return;
  if (c.complete)
    c.why_incomplete = std::to_string(unmapped) +
                       " events left out: their CPU's trace clock could not be put on "
                       "CLOCK_MONOTONIC (" +
                       (map.problem().empty() ? "no marker on that CPU" : map.problem()) + ")";
  c.complete = false;
}

BlockTraceCapture TracefsBlockTrace::Stop() {
  BlockTraceCapture c;
  c.tracefs = root_;
  c.buffer_kb_per_cpu = request_.buffer_kb_per_cpu;
  if (stopped_ || instance_.empty()) {
    c.complete = false;
    c.why_incomplete = "the trace was stopped before";
    return c;
  }
  stopped_ = true;
  try {
    const std::string marker_problem =
        clock_ == TraceClock::Local ? WriteClockMarkers() : std::string();
    WriteFile(instance_ + "/tracing_on", "0");
    c.lost_events = LostEvents(instance_);
    std::vector<TraceMarker> markers;
    ReadTrace(instance_ + "/trace", c, markers);
    if (clock_ == TraceClock::Local) {
      if (!marker_problem.empty() && c.complete) {
        c.complete = false;
        c.why_incomplete = "the trace clock's closing markers: " + marker_problem;
      }
      MapOntoMonotonic(markers, c);
    }
  } catch (...) {
    Remove();
    throw;
  }
  Remove();
  if (c.lost_events > 0) {
    const std::string lost = std::to_string(c.lost_events) + " events lost (the trace buffer of " +
                             std::to_string(c.buffer_kb_per_cpu) + " KiB per CPU filled)";
    c.why_incomplete = c.complete ? lost : lost + "; " + c.why_incomplete;
    c.complete = false;
  }
  return c;
}

void TracefsBlockTrace::Remove() noexcept {
  if (!instance_.empty()) {
    // The events' enables and filters go with the instance.
    for (int i = 0; i < 50 && ::rmdir(instance_.c_str()) != 0 && errno == EBUSY; ++i)
      ::usleep(10000);
    instance_.clear();
  }
  if (!mounted_.empty()) {
    ::umount2(mounted_.c_str(), MNT_DETACH);
    mounted_.clear();
  }
}

}  // namespace storbed

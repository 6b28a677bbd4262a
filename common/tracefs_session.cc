#include "tracefs_session.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "unique_fd.h"

namespace storbed {
namespace {

// Where tracefs lives when mounted, and where we mount it when it is not.
constexpr const char* kTracefsHome = "/sys/kernel/tracing";

std::string Errno(int err) { return std::strerror(err); }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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
    std::istringstream stats(Slurp(cpu.path().string() + "/stats"));
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
void ReadTrace(const std::string& path, BlockTraceCapture& capture) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw BlockTraceSetupError("cannot read " + path + ": " + Errno(errno));
  std::string pending;
  std::vector<char> buf(1 << 20);
  auto take = [&](std::string_view line) {
    try {
      if (auto e = ParseBlockEventLine(line)) capture.events.push_back(*e);
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

}  // namespace

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
  t->root_ = TracefsInMounts(Slurp("/proc/thread-self/mounts"));
  if (t->root_.empty()) {
    if (Slurp("/proc/filesystems").find("\ttracefs") == std::string::npos)
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
    // CLOCK_MONOTONIC, the clock the agent's engines time IOs with.
    WriteFile(instance + "/trace_clock", "mono");
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
    WriteFile(instance_ + "/tracing_on", "0");
    c.lost_events = LostEvents(instance_);
    ReadTrace(instance_ + "/trace", c);
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

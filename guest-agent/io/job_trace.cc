#include "job_trace.h"

#include <algorithm>

#include "job_runner.h"

namespace storbed {
namespace {

// The text trace rounds each time down to the microsecond: an event in an IO's first
// microsecond may print up to 1 us before the engine's submit time.
constexpr uint64_t kTextSlackNs = 1000;

uint32_t Field(const std::string& text, size_t which) {
  const size_t colon = text.find(':');
  return uint32_t(std::stoul(which == 0 ? text.substr(0, colon) : text.substr(colon + 1)));
}

}  // namespace

std::string WhyNotTraceable(const JobSpec& spec, bool target_is_block_device) {
  if (!spec.trace) return "";
  if (!spec.direct)
    return "trace: buffered IO reaches the block layer as page-cache readahead and writeback, "
           "not one request per IO; trace needs direct=true";
  if (spec.engine == Engine::Mmap)
    return "trace: ioengine mmap moves pages by faults and writeback, not one request per IO";
  if (!spec.filesystem.empty() || !target_is_block_device)
    return "trace: the target is a file on a filesystem, whose own requests (journal, "
           "metadata) and mapping of offsets the trace cannot tell from the job's; trace needs "
           "a block device target";
  return "";
}

TracedDisk TracedDiskOf(const TargetDevice& dev, const SysfsReader& sys) {
  if (!dev.name) throw JobError("trace: the target has no block device: " + dev.reason);
  TracedDisk d{*dev.name, dev.major, dev.minor, 0};
  const std::string node = "/sys/dev/block/" + std::to_string(dev.major) + ":" +
                           std::to_string(dev.minor);
  // A partition's events carry its disk's number and the disk's sectors.
  if (!sys.ReadFile(node + "/partition")) return d;
  const auto start = sys.ReadFile(node + "/start");
  const auto link = sys.ReadLink(node);
  if (!start || !link)
    throw JobError("trace: cannot find the disk of partition " + d.name + " in " + node);
  const std::string parent_dir = link->substr(0, link->rfind('/'));
  const std::string parent = parent_dir.substr(parent_dir.rfind('/') + 1);
  const auto parent_dev = sys.ReadFile("/sys/class/block/" + parent + "/dev");
  if (!parent_dev) throw JobError("trace: cannot read the device number of disk " + parent);
  d.name = parent;
  d.major = Field(*parent_dev, 0);
  d.minor = Field(*parent_dev, 1);
  d.first_sector = std::stoull(*start);
  return d;
}

BlockTraceStarter RealBlockTraceStarter(bool private_mount) {
  return [private_mount](const BlockTraceRequest& request) -> std::unique_ptr<BlockTrace> {
    BlockTraceRequest r = request;
    r.private_mount = private_mount;
    return TracefsBlockTrace::Start(r);
  };
}

JobTraceOutcome JoinJobTrace(const std::vector<const IoLog*>& logs,
                             const BlockTraceCapture& capture, const TracedDisk& disk,
                             const std::string& layer) {
  JobTraceOutcome out;
  IoTraceSummary& s = out.summary;
  s.layer = layer;
  s.disk = disk.name;
  s.major = disk.major;
  s.minor = disk.minor;
  s.first_sector = disk.first_sector;
  s.buffer_kb_per_cpu = capture.buffer_kb_per_cpu;
  s.lost_events = capture.lost_events;
  s.complete = capture.complete;
  s.why_incomplete = capture.why_incomplete;
  s.trace_clock = capture.clock;
  s.trace_clock_fit_ns = capture.clock_uncertainty_ns;
  std::vector<LoggedIo> ios;
  for (const IoLog* log : logs) {
    ios.insert(ios.end(), log->ios().begin(), log->ios().end());
    s.not_logged += log->not_logged();
    s.log_cap += log->cap();
  }
  std::sort(ios.begin(), ios.end(),
            [](const LoggedIo& a, const LoggedIo& b) { return a.submit_ns < b.submit_ns; });
  std::vector<IoWindow> windows;
  windows.reserve(ios.size());
  for (const LoggedIo& io : ios)
    windows.push_back({disk.first_sector + io.offset / 512, io.bytes / 512u, io.write,
                       io.submit_ns, io.seen_ns});
  // Events mapped from a CPU's local clock may sit the mapping's uncertainty further out.
  const BlockJoin j = JoinBlockEvents(windows, capture.events, disk.major, disk.minor,
                                      kTextSlackNs + capture.clock_uncertainty_ns);
  s.ios = ios.size();
  s.joined = j.joined;
  s.missing = j.missing;
  s.ambiguous = j.ambiguous;
  s.events = j.events;
  s.unmatched_events = j.unmatched_events;
  out.ios.reserve(ios.size());
  for (size_t i = 0; i < ios.size(); ++i)
    out.ios.push_back({ios[i].offset, ios[i].bytes, ios[i].write, ios[i].queued_ns,
                       ios[i].submit_ns, ios[i].seen_ns, j.times[i], j.state[i]});
  return out;
}

}  // namespace storbed

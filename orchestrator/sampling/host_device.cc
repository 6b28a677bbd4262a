#include "sampling/host_device.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace storbed {
namespace {

namespace fs = std::filesystem;

// Loops of loops or dm stacks deeper than this are a cycle or a mistake.
constexpr int kMaxDepth = 8;

std::optional<std::string> ReadFirstLine(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

class Resolver {
 public:
  Resolver(std::string sysfs_root, const StatDeviceFn& stat_fn)
      : root_(std::move(sysfs_root)), stat_(stat_fn) {}

  HostDeviceChain Run(const std::string& path) {
    if (ResolvePath(path, 0)) {
      out_.available = !out_.devices.empty();
      if (!out_.available) out_.reason = "no device: nothing under " + path;
    }
    if (!out_.available) {
      out_.chain.clear();
      out_.devices.clear();
    }
    return std::move(out_);
  }

 private:
  bool Fail(std::string reason) {
    out_.reason = std::move(reason);
    return false;
  }

  bool ResolvePath(const std::string& path, int depth) {
    std::string err;
    std::optional<DevNumber> dev = stat_(path, &err);
    if (!dev) return Fail("no device: cannot stat " + path + ": " + err);
    // Major 0 is the kernel's "unnamed" devices: tmpfs, overlayfs, btrfs subvolumes, NFS.
    if (dev->major == 0) {
      return Fail("no device: " + path + " is on a filesystem without a block device (tmpfs?)");
    }
    const std::string id = std::to_string(dev->major) + ":" + std::to_string(dev->minor);
    std::error_code ec;
    fs::path dir = fs::canonical(fs::path(root_) / "dev/block" / id, ec);
    if (ec)
      return Fail("no device: " + path + " is on device " + id + ", which has no " + root_ +
                  "/dev/block/" + id);
    return ResolveDir(dir, depth);
  }

  bool ResolveDir(fs::path dir, int depth) {
    if (depth > kMaxDepth) return Fail("no device: the device stack is deeper than 8 (a cycle?)");
    std::error_code ec;
    // A partition's sysfs directory sits inside its disk's and has a "partition" file.
    if (fs::exists(dir / "partition", ec)) {
      const std::string part = dir.filename().string();
      dir = dir.parent_path();
      out_.notes.push_back(part + " is a partition of " + dir.filename().string() +
                           ": the whole disk's counters are used");
    }
    const std::string name = dir.filename().string();
    out_.chain.push_back(name);
    if (fs::exists(dir / "loop", ec)) {
      std::optional<std::string> backing = ReadFirstLine(dir / "loop/backing_file");
      if (!backing || backing->empty()) {
        out_.notes.push_back(name + " is a loop device without a readable backing file");
        out_.devices.push_back(name);
        return true;
      }
      std::string file = *backing;
      // The kernel appends " (deleted)" when the backing file was unlinked.
      if (const std::string del = " (deleted)";
          file.size() > del.size() &&
          file.compare(file.size() - del.size(), del.size(), del) == 0) {
        file.resize(file.size() - del.size());
      }
      out_.notes.push_back(name + " is a loop device on " + file);
      return ResolvePath(file, depth + 1);
    }
    std::vector<fs::path> slaves;
    for (fs::directory_iterator it(dir / "slaves", ec), end; !ec && it != end; it.increment(ec)) {
      slaves.push_back(it->path());
    }
    if (slaves.empty()) {
      out_.devices.push_back(name);
      return true;
    }
    std::sort(slaves.begin(), slaves.end());
    for (const fs::path& s : slaves) {
      fs::path sdir = fs::canonical(s, ec);
      if (ec) return Fail("no device: cannot follow " + s.string() + ": " + ec.message());
      if (!ResolveDir(sdir, depth + 1)) return false;
    }
    return true;
  }

  std::string root_;
  const StatDeviceFn& stat_;
  HostDeviceChain out_;
};

std::optional<DiskCounters> SumDevices(const std::vector<DiskCounters>& all,
                                       const std::vector<std::string>& names,
                                       std::string* missing) {
  DiskCounters sum;
  for (const std::string& n : names) {
    const DiskCounters* found = nullptr;
    for (const DiskCounters& c : all) {
      if (c.name == n) found = &c;
    }
    if (found == nullptr) {
      *missing = n;
      return std::nullopt;
    }
    sum.name = sum.name.empty() ? n : sum.name + "+" + n;
    sum.reads += found->reads;
    sum.read_merges += found->read_merges;
    sum.read_sectors += found->read_sectors;
    sum.read_ms += found->read_ms;
    sum.writes += found->writes;
    sum.write_merges += found->write_merges;
    sum.write_sectors += found->write_sectors;
    sum.write_ms += found->write_ms;
    sum.in_flight += found->in_flight;
    sum.io_ms += found->io_ms;
    sum.weighted_ms += found->weighted_ms;
    sum.flushes += found->flushes;
    sum.flush_ms += found->flush_ms;
  }
  return sum;
}

bool Backwards(const DiskCounters& a, const DiskCounters& b) {
  return b.reads < a.reads || b.writes < a.writes || b.read_sectors < a.read_sectors ||
         b.write_sectors < a.write_sectors || b.read_ms < a.read_ms || b.write_ms < a.write_ms ||
         b.weighted_ms < a.weighted_ms || b.flushes < a.flushes;
}

// Both texts summed over the chain's devices; false with *reason set when impossible.
bool SumBoth(const HostDeviceChain& chain, const std::string& before_text,
             const std::string& after_text, DiskCounters* before, DiskCounters* after,
             std::string* reason) {
  if (!chain.available) {
    *reason = chain.reason;
    return false;
  }
  std::vector<DiskCounters> b, a;
  try {
    b = ParseDiskstats(before_text);
    a = ParseDiskstats(after_text);
  } catch (const std::exception& e) {
    *reason = std::string("host /proc/diskstats did not parse: ") + e.what();
    return false;
  }
  std::string missing;
  auto sb = SumDevices(b, chain.devices, &missing);
  auto sa = sb ? SumDevices(a, chain.devices, &missing) : std::nullopt;
  if (!sb || !sa) {
    *reason = "host /proc/diskstats has no line for " + missing;
    return false;
  }
  if (Backwards(*sb, *sa)) {
    *reason = "host /proc/diskstats counters of " + sa->name + " went backwards";
    return false;
  }
  *before = *sb;
  *after = *sa;
  return true;
}

}  // namespace

std::optional<DevNumber> StatDevice(const std::string& path, std::string* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (error != nullptr) *error = std::strerror(errno);
    return std::nullopt;
  }
  const dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  return DevNumber{major(d), minor(d)};
}

HostDeviceChain ResolveHostDevice(const std::string& path, const std::string& sysfs_root,
                                  const StatDeviceFn& stat_fn) {
  return Resolver(sysfs_root, stat_fn).Run(path);
}

LayerStats HostDeviceLayer(const HostDeviceChain& chain, const std::string& before_text,
                           const std::string& after_text, double interval_s) {
  LayerStats l;
  l.layer = kLayerHostDevice;
  std::string names;
  for (const std::string& d : chain.devices) names += (names.empty() ? "" : "+") + d;
  l.source = "/proc/diskstats " + names;
  DiskCounters b, a;
  if (!SumBoth(chain, before_text, after_text, &b, &a, &l.reason)) return l;
  if (interval_s <= 0) {
    l.reason = "zero-length interval";
    return l;
  }
  BlockStats s = DiffDiskCounters(b, a, interval_s);
  l.available = true;
  l.avg_depth = s.avg_queue_depth;
  l.has_iops = true;
  l.iops = s.iops;
  const uint64_t ios = s.reads + s.writes;
  l.has_request_size = ios > 0;
  l.avg_request_bytes = s.avg_request_bytes;
  l.has_ops = true;
  l.reads_per_s = static_cast<double>(s.reads) / interval_s;
  l.writes_per_s = static_cast<double>(s.writes) / interval_s;
  l.flushes_per_s = static_cast<double>(s.flushes) / interval_s;
  l.has_latency = ios > 0;
  if (ios > 0) {
    l.mean_latency_us = static_cast<double>((a.read_ms - b.read_ms) + (a.write_ms - b.write_ms)) *
                        1000.0 / static_cast<double>(ios);
  }
  l.notes = chain.notes;
  l.notes.push_back("device shared with other host IO");
  if (chain.chain.size() > chain.devices.size()) {
    std::string c;
    for (const std::string& d : chain.chain) c += (c.empty() ? "" : " -> ") + d;
    l.notes.push_back("device chain " + c);
  }
  return l;
}

std::optional<uint64_t> HostInFlight(const HostDeviceChain& chain, const std::string& text) {
  if (!chain.available) return std::nullopt;
  try {
    std::string missing;
    auto sum = SumDevices(ParseDiskstats(text), chain.devices, &missing);
    if (!sum) return std::nullopt;
    return sum->in_flight;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<uint64_t> HostFlushes(const HostDeviceChain& chain, const std::string& before_text,
                                    const std::string& after_text) {
  DiskCounters b, a;
  std::string reason;
  if (!SumBoth(chain, before_text, after_text, &b, &a, &reason)) return std::nullopt;
  return a.flushes - b.flushes;
}

}  // namespace storbed

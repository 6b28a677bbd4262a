#include "block_tunables.h"

#include <filesystem>

#include "job_runner.h"
#include "kernel_attr.h"
#include "sysfs_read.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

// Every attribute read back here is an unsigned decimal; -1 in BlockTunables means unset.
std::optional<int64_t> ReadInt(const std::string& path) {
  const std::optional<uint64_t> value = ReadUint(path);
  if (!value) return std::nullopt;
  return int64_t(*value);
}

std::string Describe(const std::string& path, const std::string& value, const std::string& err) {
  return "cannot set " + path + " to " + value + ": " + err;
}

}  // namespace

std::string ActiveScheduler(const std::string& text) {
  const size_t open = text.find('['), close = text.find(']', open == std::string::npos ? 0 : open);
  if (open != std::string::npos && close != std::string::npos)
    return text.substr(open + 1, close - open - 1);
  const size_t b = text.find_first_not_of(" \t\n"), e = text.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : text.substr(b, e - b + 1);
}

std::optional<std::string> QueueDir(const std::string& device_name, const std::string& sysfs_root) {
  std::error_code ec;
  const fs::path block = fs::path(sysfs_root) / "block";
  if (fs::is_directory(block / device_name / "queue", ec)) return (block / device_name / "queue").string();
  // Partitions have no queue of their own; they are subdirectories of their disk
  // (/sys/block/vda/vda1), whose queue serves them.
  for (const auto& disk : fs::directory_iterator(block, ec))
    if (fs::is_directory(disk.path() / device_name, ec) && fs::is_directory(disk.path() / "queue", ec))
      return (disk.path() / "queue").string();
  return std::nullopt;
}

BlockTunables ApplyBlockTunables(const std::string& device_name, const BlockTunables& wanted,
                                 const std::string& sysfs_root,
                                 std::vector<std::string>* warnings) {
  const auto queue = QueueDir(device_name, sysfs_root);
  if (!queue)
    throw JobError("cannot apply block tunables: no queue directory for device " + device_name +
                   " under " + sysfs_root + "/block");
  const std::string q = *queue + "/";
  auto warn = [&](std::string w) {
    if (warnings) warnings->push_back(std::move(w));
  };
  auto must_write = [&](const std::string& attr, const std::string& value) {
    if (auto err = WriteKernelAttr(q + attr, value)) throw JobError(Describe(q + attr, value, *err));
  };

  // Order matters. A scheduler switch resets nr_requests to the new scheduler's default,
  // so the scheduler goes first. Changing max_sectors_kb re-applies the queue limits, which
  // on recent kernels raises read_ahead_kb back to at least 128 KiB, so read_ahead_kb goes
  // last.
  if (!wanted.scheduler.empty()) must_write("scheduler", wanted.scheduler);
  if (wanted.nr_requests >= 0) {
    const std::string v = std::to_string(wanted.nr_requests);
    // The kernel refuses nr_requests above the tag depth with "none", and some schedulers
    // cap it: the job can still run, on whatever the queue kept.
    if (auto err = WriteKernelAttr(q + "nr_requests", v))
      warn(Describe(q + "nr_requests", v, *err) + " (the scheduler may not allow it)");
  }
  if (wanted.max_sectors_kb >= 0) {
    const auto hw = ReadInt(q + "max_hw_sectors_kb");
    if (hw && wanted.max_sectors_kb > *hw)
      throw JobError("cannot set " + q + "max_sectors_kb to " +
                     std::to_string(wanted.max_sectors_kb) + ": above max_hw_sectors_kb " +
                     std::to_string(*hw) + " of " + device_name);
    must_write("max_sectors_kb", std::to_string(wanted.max_sectors_kb));
  }
  if (wanted.read_ahead_kb >= 0) must_write("read_ahead_kb", std::to_string(wanted.read_ahead_kb));

  BlockTunables applied;
  auto read_int = [&](const char* attr) -> int64_t {
    if (auto v = ReadInt(q + attr)) return *v;
    warn("cannot read back " + q + attr);
    return -1;
  };
  applied.read_ahead_kb = read_int("read_ahead_kb");
  applied.nr_requests = read_int("nr_requests");
  applied.max_sectors_kb = read_int("max_sectors_kb");
  if (auto text = ReadTrimmed(q + "scheduler")) {
    applied.scheduler = ActiveScheduler(*text);
  } else {
    warn("cannot read back " + q + "scheduler");
  }
  return applied;
}

}  // namespace storbed

#include "device_info.h"

#include <algorithm>
#include <iterator>
#include <system_error>

#include "file_read.h"
#include "sysfs_read.h"

namespace storbed::agent {
namespace {

namespace fs = std::filesystem;

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

uint32_t ReadU32(const fs::path& path) { return static_cast<uint32_t>(ReadUint(path).value_or(0)); }

// queue/scheduler lists every elevator with the active one in brackets,
// e.g. "[mq-deadline] kyber none".
std::string ActiveScheduler(const fs::path& path) {
  const std::string text = ReadTrimmed(path).value_or("");
  const size_t open = text.find('[');
  const size_t close = text.find(']', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return text;
  return text.substr(open + 1, close - open - 1);
}

// blk-mq makes one mq/<n> directory per hardware queue.
uint32_t CountEntries(const fs::path& dir) {
  std::error_code ec;
  uint32_t count = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++count;
  return count;
}

}  // namespace

bool IsIgnoredBlockDevice(const std::string& name, uint64_t size_bytes) {
  if (StartsWith(name, "loop") || StartsWith(name, "ram") || StartsWith(name, "zram") ||
      StartsWith(name, "sr"))
    return true;
  return StartsWith(name, "dm-") && size_bytes == 0;
}

// SCSI disks carry the serial in the Unit Serial Number VPD page: a 4-byte header
// (byte 3 = length) then the serial, space padded.
std::string SerialFromVpdPage80(const fs::path& path) {
  const std::string page = ReadFileOrEmpty(path);
  if (page.size() < 4 || static_cast<unsigned char>(page[1]) != 0x80) return "";
  const size_t length = std::min<size_t>(static_cast<unsigned char>(page[3]), page.size() - 4);
  std::string serial = page.substr(4, length);
  while (!serial.empty() && (serial.back() == ' ' || serial.back() == '\0')) serial.pop_back();
  while (!serial.empty() && serial.front() == ' ') serial.erase(serial.begin());
  return serial;
}

std::optional<BlockDeviceInfo> ReadBlockDevice(const fs::path& sysfs_root,
                                               const std::string& name) {
  const fs::path dir = sysfs_root / "block" / name;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  const fs::path queue = dir / "queue";

  BlockDeviceInfo info;
  info.name = name;
  info.path = "/dev/" + name;
  // The size attribute counts 512-byte sectors whatever the logical block size.
  info.size_bytes = ReadUint(dir / "size").value_or(0) * 512;
  // virtio-blk exposes its serial on the disk, NVMe on the controller (device/).
  info.serial = ReadTrimmed(dir / "serial").value_or("");
  if (info.serial.empty()) info.serial = ReadTrimmed(dir / "device" / "serial").value_or("");
  if (info.serial.empty()) info.serial = SerialFromVpdPage80(dir / "device" / "vpd_pg80");
  info.model = ReadTrimmed(dir / "device" / "model").value_or("");
  info.logical_block_size = ReadU32(queue / "logical_block_size");
  info.physical_block_size = ReadU32(queue / "physical_block_size");
  info.rotational = ReadUint(queue / "rotational").value_or(0) != 0;
  info.read_ahead_kb = ReadU32(queue / "read_ahead_kb");
  info.nr_requests = ReadU32(queue / "nr_requests");
  info.max_sectors_kb = ReadU32(queue / "max_sectors_kb");
  info.scheduler = ActiveScheduler(queue / "scheduler");
  info.nr_hw_queues = CountEntries(dir / "mq");
  return info;
}

std::vector<BlockDeviceInfo> ListBlockDevices(const fs::path& sysfs_root) {
  std::vector<BlockDeviceInfo> devices;
  std::error_code ec;
  for (fs::directory_iterator it(sysfs_root / "block", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::optional<BlockDeviceInfo> info = ReadBlockDevice(sysfs_root, name);
    if (!info || IsIgnoredBlockDevice(name, info->size_bytes)) continue;
    devices.push_back(std::move(*info));
  }
  std::sort(devices.begin(), devices.end(),
            [](const BlockDeviceInfo& a, const BlockDeviceInfo& b) { return a.name < b.name; });
  return devices;
}

}  // namespace storbed::agent

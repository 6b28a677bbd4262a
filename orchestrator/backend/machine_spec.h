// What a backend boots: CPUs, memory, accelerator, the guest image and the disks.
// Plain data; validation against QEMU's rules lives in qemu_argv.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storbed {

// A disk bus; everything about one is its row in bus_table.cc.
enum class Bus { VirtioBlk, Nvme, VirtioScsi, Ahci };
enum class Aio { Threads, Native, IoUring };
enum class CacheMode { None, Writeback };
enum class Accel { Kvm, Tcg };

struct DiskSpec {
  std::string id;                 // short name, used in node names: "file-<id>", "disk-<id>"
  Bus bus = Bus::VirtioBlk;
  std::string backing;            // host file or block device ("" for null-co)
  // QEMU's protocol driver under the format: a row of disk_driver.h ("file",
  // "host_device", "null-co").
  std::string driver = "file";
  uint64_t null_size = 0;         // null-co: the disk's size in bytes
  uint64_t null_latency_ns = 0;   // null-co: added to every request
  std::string format = "raw";     // "raw" or "qcow2"
  uint32_t num_queues = 1;        // buses with virtqueues (bus_table.h: QueueModel)
  uint32_t queue_size = 256;      // buses with virtqueues
  bool iothread = false;          // buses with virtqueues
  Aio aio = Aio::Threads;
  CacheMode cache = CacheMode::None;
  // cache.no-flush=on: QEMU acknowledges guest flushes without passing them to the host,
  // so nothing the guest fsyncs is durable. For experiments that show exactly that.
  bool no_flush = false;
  bool request_merging = true;    // virtio-blk: QEMU's request-merging; nvme: recorded only
  std::string serial;             // the guest maps disks by serial; "" means id
  uint32_t nvme_max_ioqpairs = 2; // nvme only
  // A host PCI address ("0000:03:00.0"): the disk is that NVMe controller itself, given to
  // the guest with -device vfio-pci (bus nvme; no blockdev, backing or queue options).
  // `serial` is then the device's own, which the guest reports.
  std::string vfio_host;
};

// The kernel command line of a storbed guest: the console on the serial port, the agent as
// /init, panic=-1 so a guest panic (with -no-reboot / on_reboot destroy) ends the VM at
// once instead of hanging until a timeout, and no crypto self-tests at boot (0.44 s of a
// 3 s TCG boot; the algorithms, ext4's and xfs's crc32c among them, work as before, only
// untested at registration; docs/boot.md).
inline constexpr const char* kGuestCmdline =
    "console=ttyS0 loglevel=4 panic=-1 cryptomgr.notests rdinit=/init";

// How the agent gets into a foreign guest: through its QEMU guest agent (guest-file-write
// + guest-exec), through cloud-init reading a NoCloud seed disk, or whichever works (auto).
enum class AgentPushWay { Auto, Qga, CloudInit };
std::string ToString(AgentPushWay way);  // "auto", "qga", "cloud-init"
AgentPushWay ParseAgentPushWay(const std::string& text);

// The serials of the two small disks of the cloud-init way, after the disks under test:
// the guest's user-data finds the agent's disk by this serial in /sys/block/*/serial.
inline constexpr const char* kSeedDiskSerial = "storbed-seed";
inline constexpr const char* kAgentDiskSerial = "storbed-agentbin";

// A foreign guest: its own OS on a root disk, the agent pushed in after boot (qemu-ga or
// cloud-init) instead of being /init.
struct ForeignRoot {
  std::string overlay;       // the qcow2 overlay QEMU writes (the image under it stays as is)
  std::string agent_binary;  // the static storbed-agent to push
  AgentPushWay push = AgentPushWay::Auto;
  // The cloud-init way (push auto or cloud-init), made per machine in the work directory:
  // an iso9660 seed labelled "cidata" (meta-data, user-data) and a raw disk whose first
  // bytes are the agent binary. Both "" when that way is not offered.
  std::string seed_image, agent_disk;
  // The QGA channel exists unless push is cloud-init.
  bool HasQgaChannel() const { return push != AgentPushWay::CloudInit; }
};

struct MachineSpec {
  std::string name;
  uint32_t vcpus = 2;
  uint64_t memory_mib = 1024;
  Accel accel = Accel::Tcg;
  // kernel "" with a foreign root: the image's own bootloader boots it from disk.
  std::string kernel, initrd, cmdline;
  std::vector<DiskSpec> disks;
  std::optional<ForeignRoot> foreign;
  std::string run_dir;            // sockets, logs and the pid file go here
  // job.trace: QEMU stamps its log lines (-msg timestamp=on), so the trace events a traced
  // job turns on and sends to a log file (QMP) carry their times. libvirt does so always.
  bool qemu_trace = false;
  std::string qemu_binary = "qemu-system-x86_64";
};

// The names used in scenario files and in QEMU options.
std::string ToString(Bus bus);          // the bus row's name: "virtio-blk", "nvme", ...
std::string ToString(Aio aio);          // "threads", "native", "io_uring"
std::string ToString(CacheMode cache);  // "none", "writeback"
std::string ToString(Accel accel);      // "kvm", "tcg"

// Inverse of ToString. Throw std::invalid_argument naming the bad value and the allowed ones.
Bus ParseBus(const std::string& text);
Aio ParseAio(const std::string& text);
CacheMode ParseCacheMode(const std::string& text);
Accel ParseAccel(const std::string& text);

}  // namespace storbed

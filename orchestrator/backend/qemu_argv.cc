#include "backend/qemu_argv.h"

#include <sys/un.h>

#include <set>

#include "backend/bus_table.h"
#include "backend/disk_driver.h"
#include "passthrough/pci_sysfs.h"
#include "protocol.h"

namespace storbed {
namespace {

// QEMU option values are comma separated; a literal comma is written ",,".
std::string EscapeCommas(const std::string& value) {
  std::string out;
  for (char c : value) {
    out += c;
    if (c == ',') out += ',';
  }
  return out;
}

bool IsSafeName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

const char* OnOff(bool b) { return b ? "on" : "off"; }

// "virtio-blk, virtio-scsi": the buses an iothread can serve.
std::string VirtqueueBusNames() {
  std::string names;
  for (const BusRow& row : BusTable()) {
    if (row.queues == QueueModel::Virtqueues)
      names += (names.empty() ? "" : " or ") + std::string(row.name);
  }
  return names;
}

void ValidateDisk(const DiskSpec& d) {
  auto fail = [&](const std::string& field, const std::string& problem) {
    throw MachineSpecError(d.id, field, problem);
  };
  // Node names must start with a letter and stay under 32 characters; ours add "file-".
  if (!IsSafeName(d.id) || d.id.size() > 20) {
    fail("id", "\"" + d.id + "\" must be 1-20 characters of [A-Za-z0-9._-]");
  }
  if (!d.vfio_host.empty()) {
    if (const std::string why = PciAddressProblem(d.vfio_host); !why.empty()) fail("vfio_host", why);
    if (d.bus != Bus::Nvme)
      fail("vfio_host", "a passed-through PCI device is an NVMe controller: its bus is nvme, not " +
                            ToString(d.bus));
    return;
  }
  const DiskDriverRow* driver = FindDiskDriver(d.driver);
  if (!driver) {
    fail("driver", "\"" + d.driver + "\" is not supported; allowed: " + DiskDriverNames());
  }
  if (!driver->has_storage) {
    if (d.null_size == 0) fail("null_size", "must be set for " + d.driver + " (the disk's size)");
    if (d.format != "raw") fail("format", d.driver + " has no data to hold a qcow2 image; use raw");
  } else if (d.backing.empty()) {
    fail("backing", "is empty; name a file or block device");
  }
  if (d.format != "raw" && d.format != "qcow2") {
    fail("format", "\"" + d.format + "\" is not supported; allowed: \"raw\", \"qcow2\"");
  }
  if (d.aio == Aio::Native && d.cache != CacheMode::None) {
    fail("aio",
         "aio=native needs cache=none: QEMU refuses aio=native without "
         "cache.direct=on (O_DIRECT)");
  }
  if (d.serial.size() > 20) {
    fail("serial", "\"" + d.serial +
                       "\" is longer than 20 characters (the NVMe and "
                       "virtio-blk serial limit)");
  }
  if (d.serial.find(',') != std::string::npos) fail("serial", "must not contain a comma");
  const BusRow& bus = RowOf(d.bus);
  if (bus.queues == QueueModel::Virtqueues) {
    uint32_t q = d.queue_size;
    // QEMU 7.2: "invalid queue-size property (2), must be > 2" (virtio-scsi alike).
    if (q < 4 || q > 1024 || (q & (q - 1)) != 0) {
      fail("queue_size", std::to_string(q) + " must be a power of two from 4 to 1024");
    }
    if (d.num_queues < 1 || d.num_queues > 1024) {
      fail("num_queues", std::to_string(d.num_queues) + " must be from 1 to 1024");
    }
  } else if (d.iothread) {
    fail("iothread",
         "iothread needs a virtio bus (" + VirtqueueBusNames() + "); " + bus.name + " has none");
  }
  if (bus.queues == QueueModel::NvmeQueuePairs && d.nvme_max_ioqpairs < 1) {
    fail("nvme_max_ioqpairs", "must be at least 1");
  }
}

// The bus's queue options (",num-queues=2,queue-size=128"), on the device or its controller.
std::string QueueOptions(const BusRow& bus, const DiskSpec& d) {
  std::string opts;
  const uint32_t count =
      bus.queues == QueueModel::NvmeQueuePairs ? d.nvme_max_ioqpairs : d.num_queues;
  if (bus.queues_prop) opts += std::string(",") + bus.queues_prop + "=" + std::to_string(count);
  if (bus.queue_size_prop) {
    opts += std::string(",") + bus.queue_size_prop + "=" + std::to_string(d.queue_size);
  }
  return opts;
}

void AppendDiskArgs(const DiskSpec& d, std::vector<std::string>& argv) {
  if (!d.vfio_host.empty()) {
    // The guest's own nvme driver runs the controller; QEMU only maps it (and its DMA,
    // through the IOMMU group's /dev/vfio/N) into the guest.
    argv.insert(argv.end(), {"-device", "vfio-pci,host=" + d.vfio_host + ",id=dev-" + d.id});
    return;
  }
  const std::string file_node = "file-" + d.id;
  const std::string disk_node = "disk-" + d.id;
  // QEMU's nvme refuses an empty serial and the agent maps disks by serial: default to id.
  const std::string serial = d.serial.empty() ? d.id : d.serial;
  if (d.iothread) {
    argv.insert(argv.end(), {"-object", "iothread,id=io-" + d.id});
  }
  argv.insert(argv.end(), {"-blockdev", ProtocolNodeOptions(d)});
  argv.insert(argv.end(), {"-blockdev", "driver=" + d.format + ",node-name=" + disk_node +
                                            ",file=" + file_node});
  const BusRow& bus = RowOf(d.bus);
  const std::string iothread = d.iothread ? ",iothread=io-" + d.id : "";
  std::string dev = bus.device_model;
  if (bus.controller_model) {
    const std::string ctl = ControllerId(d.bus, "dev-" + d.id);
    argv.insert(argv.end(), {"-device", std::string(bus.controller_model) + ",id=" + ctl +
                                            QueueOptions(bus, d) + iothread});
    dev += ",bus=" + ctl + ".0";
  }
  // Without bus=, QEMU puts a disk that is not a PCI function (ide-hd) on the first free
  // bus of its kind: q35's built-in ich9-ahci has six, ide.0 to ide.5.
  dev += ",drive=" + disk_node + ",id=dev-" + d.id + ",serial=" + serial;
  if (!bus.controller_model) dev += QueueOptions(bus, d);
  if (bus.merging_prop) dev += std::string(",") + bus.merging_prop + "=" + OnOff(d.request_merging);
  if (!bus.controller_model) dev += iothread;
  argv.insert(argv.end(), {"-device", dev});
}

// The root disk first, so it is the guest's first virtio disk (/dev/vda), and the boot
// device when there is no -kernel (which takes bootindex 0 itself); then the QEMU guest
// agent's port on the same virtio-serial bus, unless the agent comes in by cloud-init only.
void AppendForeignRoot(const ForeignRoot& root, bool boots_from_disk, const MachinePaths& paths,
                       std::vector<std::string>& argv) {
  argv.insert(argv.end(),
              {"-blockdev", "driver=file,node-name=file-root,filename=" + EscapeCommas(root.overlay),
               "-blockdev", "driver=qcow2,node-name=disk-root,file=file-root",
               "-device", std::string("virtio-blk-pci,drive=disk-root,id=dev-root") +
                              (boots_from_disk ? ",bootindex=0" : "") + ",serial=" +
                              kForeignRootSerial});
  if (!root.HasQgaChannel()) return;
  argv.insert(argv.end(),
              {"-chardev", "socket,id=qga,path=" + EscapeCommas(paths.qga_socket) +
                               ",server=on,wait=off",
               "-device", std::string("virtserialport,bus=vser0.0,chardev=qga,name=") +
                              kQemuGuestAgentPortName});
}

// The cloud-init way's two small read-only disks, after the disks under test so those keep
// their places: the NoCloud seed (cloud-init finds it by its "cidata" label) and the agent.
void AppendCloudInitDisks(const ForeignRoot& root, std::vector<std::string>& argv) {
  if (root.seed_image.empty()) return;
  const std::pair<const char*, const std::string*> disks[] = {
      {kSeedDiskSerial, &root.seed_image}, {kAgentDiskSerial, &root.agent_disk}};
  for (const auto& [serial, path] : disks) {
    const std::string node = std::string(serial == kSeedDiskSerial ? "seed" : "agentbin");
    argv.insert(argv.end(),
                {"-blockdev", "driver=file,node-name=file-" + node + ",filename=" +
                                  EscapeCommas(*path) + ",read-only=on",
                 "-blockdev", "driver=raw,node-name=disk-" + node + ",file=file-" + node +
                                  ",read-only=on",
                 "-device", "virtio-blk-pci,drive=disk-" + node + ",id=dev-" + node +
                                ",serial=" + serial});
  }
}

}  // namespace

std::string ProtocolNodeOptions(const DiskSpec& d) {
  const std::string node = "node-name=file-" + d.id;
  if (!DiskDriverOf(d.driver).has_storage) {
    // read-zeroes=on: without it reads return whatever was in the guest's buffer.
    return "driver=" + d.driver + "," + node + ",size=" + std::to_string(d.null_size) +
           ",latency-ns=" + std::to_string(d.null_latency_ns) + ",read-zeroes=on";
  }
  // cache=none is O_DIRECT on the host file; no-flush stays off unless asked, so guest
  // flushes reach the host (durability jobs cross-check them).
  return "driver=" + d.driver + "," + node + ",filename=" + EscapeCommas(d.backing) +
         ",aio=" + ToString(d.aio) + ",cache.direct=" + OnOff(d.cache == CacheMode::None) +
         ",cache.no-flush=" + OnOff(d.no_flush);
}

std::string ControllerId(Bus bus, const std::string& device_id) {
  return device_id + RowOf(bus).controller_suffix;
}

std::vector<std::string> DiskArgv(const DiskSpec& disk) {
  ValidateDisk(disk);
  std::vector<std::string> argv;
  AppendDiskArgs(disk, argv);
  return argv;
}

MachineSpecError::MachineSpecError(const std::string& disk_id, const std::string& field,
                                   const std::string& problem)
    : Error(ErrorKind::Internal, disk_id.empty()
                                     ? "machine field " + field + ": " + problem
                                     : "disk \"" + disk_id + "\" field " + field + ": " + problem),
      disk_id_(disk_id),
      field_(field) {}

MachinePaths PathsIn(const std::string& run_dir) {
  return MachinePaths{.agent_socket = run_dir + "/agent.sock",
                      .qmp_socket = run_dir + "/qmp.sock",
                      .console_log = run_dir + "/console.log",
                      .pid_file = run_dir + "/qemu.pid",
                      .qga_socket = run_dir + "/qga.sock"};
}

void ValidateMachineSpec(const MachineSpec& spec, const MachinePaths& paths) {
  auto fail = [](const std::string& field, const std::string& problem) {
    throw MachineSpecError("", field, problem);
  };
  if (!IsSafeName(spec.name)) fail("name", "\"" + spec.name + "\" must be [A-Za-z0-9._-]+");
  if (spec.vcpus < 1 || spec.vcpus > 255) fail("vcpus", "must be from 1 to 255");
  if (spec.memory_mib < 64) fail("memory_mib", "must be at least 64");
  if (spec.kernel.empty() && !spec.foreign) fail("kernel", "is empty");
  if (spec.foreign && spec.foreign->overlay.empty()) fail("image", "the overlay path is empty");
  if (spec.foreign && spec.foreign->agent_binary.empty())
    fail("agent", "a foreign guest needs the agent binary to push");
  if (spec.foreign && spec.foreign->seed_image.empty() != spec.foreign->agent_disk.empty())
    fail("agent_push", "the cloud-init way needs both its seed disk and its agent disk");
  if (spec.foreign && spec.foreign->push == AgentPushWay::CloudInit &&
      spec.foreign->seed_image.empty())
    fail("agent_push", "cloud-init without a seed disk leaves no way in for the agent");
  if (spec.qemu_binary.empty()) fail("qemu_binary", "is empty");
  if (spec.run_dir.empty()) fail("run_dir", "is empty");
  // sun_path holds 107 characters plus the NUL; QEMU's own message for this is obscure.
  for (const std::string* s : {&paths.agent_socket, &paths.qmp_socket, &paths.qga_socket}) {
    if (s->size() >= sizeof(sockaddr_un::sun_path)) {
      fail("run_dir", "socket path " + *s + " is longer than " +
                          std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                          " characters; use a shorter run directory");
    }
  }
  std::set<std::string> ids;
  for (const DiskSpec& d : spec.disks) {
    ValidateDisk(d);
    if (!ids.insert(d.id).second) throw MachineSpecError(d.id, "id", "is used by two disks");
  }
}

std::vector<std::string> BuildQemuArgv(const MachineSpec& spec, const MachinePaths& paths) {
  ValidateMachineSpec(spec, paths);
  const bool kvm = spec.accel == Accel::Kvm;
  std::vector<std::string> argv = {
      spec.qemu_binary,
      // debug-threads=on names QEMU's threads ("CPU 0/KVM", "IO io-d0", "worker"); without
      // it every thread is "qemu-system-x86" and the host sampler cannot tell them apart.
      "-name", "storbed-" + spec.name + ",debug-threads=on",
      "-machine", std::string("q35,accel=") + (kvm ? "kvm" : "tcg"),
      // TCG cannot do "host"; "max" gives it every feature TCG emulates.
      "-cpu", kvm ? "host" : "max",
      "-smp", std::to_string(spec.vcpus),
      "-m", std::to_string(spec.memory_mib),
      "-nodefaults", "-no-user-config", "-display", "none",
      // A guest reboot would rerun the agent as PID 1: make it an exit instead.
      "-no-reboot"};
  if (!spec.kernel.empty()) argv.insert(argv.end(), {"-kernel", spec.kernel});
  if (!spec.initrd.empty()) argv.insert(argv.end(), {"-initrd", spec.initrd});
  if (!spec.cmdline.empty()) argv.insert(argv.end(), {"-append", spec.cmdline});
  argv.insert(
      argv.end(),
      {"-chardev", "file,id=console,path=" + EscapeCommas(paths.console_log),
       "-serial", "chardev:console",
       // wait=off: QEMU starts the guest without waiting for us to connect.
       "-chardev", "socket,id=agent,path=" + EscapeCommas(paths.agent_socket) +
                       ",server=on,wait=off",
       "-device", "virtio-serial-pci,id=vser0",
       "-device", std::string("virtserialport,bus=vser0.0,chardev=agent,name=") + kAgentPortName,
       "-qmp", "unix:" + EscapeCommas(paths.qmp_socket) + ",server=on,wait=off",
       "-pidfile", paths.pid_file});
  if (spec.qemu_trace) argv.insert(argv.end(), {"-msg", "timestamp=on"});
  if (spec.foreign) AppendForeignRoot(*spec.foreign, spec.kernel.empty(), paths, argv);
  for (const DiskSpec& d : spec.disks) AppendDiskArgs(d, argv);
  if (spec.foreign) AppendCloudInitDisks(*spec.foreign, argv);
  return argv;
}

std::string DescribeDisk(const DiskSpec& d) {
  const BusRow& bus = RowOf(d.bus);
  if (!d.vfio_host.empty())
    return d.id + ": " + bus.name + " passthrough of host PCI device " + d.vfio_host +
           " (vfio-pci; the device's own queues), serial " + d.serial;
  std::string s = d.id + ": " + bus.name;
  if (!DiskDriverOf(d.driver).has_storage) {
    s += " on " + d.driver + " (no storage; " + std::to_string(d.null_size) + " bytes, " +
         std::to_string(d.null_latency_ns) + " ns per request)";
  } else {
    s += " backing " + d.backing + " (" + d.driver + ", " + d.format + "), aio=" + ToString(d.aio) +
         ", cache=" + ToString(d.cache);
  }
  if (bus.queues == QueueModel::Virtqueues) {
    s += bus.controller_model ? ", own " + std::string(bus.controller_model) + " controller with "
                              : ", ";
    s += std::to_string(d.num_queues) + " request queue(s) of " + std::to_string(d.queue_size) +
         (d.iothread ? ", iothread" : ", no iothread");
  } else if (bus.queues == QueueModel::NvmeQueuePairs) {
    s += ", max_ioqpairs " + std::to_string(d.nvme_max_ioqpairs);
  } else {
    s += std::string(", ") + bus.fixed_queue;
  }
  s += std::string(", request merging ") + OnOff(d.request_merging);
  s += bus.merging_prop ? " (QEMU request-merging)"
                        : std::string(" (recorded only: QEMU's ") + bus.device_model +
                              " device has no merging knob; the guest's nomerges is)";
  s += ", serial " + (d.serial.empty() ? d.id : d.serial);
  return s;
}

}  // namespace storbed

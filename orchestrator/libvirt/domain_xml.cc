#include "libvirt/domain_xml.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "backend/bus_table.h"
#include "backend/disk_driver.h"
#include "backend/qemu_argv.h"
#include "libvirt/backend_libvirt.h"
#include "libvirt/xml_doc.h"
#include "protocol.h"

namespace storbed {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.';
}

bool IsSafeName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsNameChar(c)) return false;
  return true;
}

// libvirt's cache= names the pair QEMU options cache.direct and cache.no-flush.
std::string LibvirtCache(const DiskSpec& d) {
  if (d.cache == CacheMode::Writeback) return d.no_flush ? "unsafe" : "writeback";
  if (d.no_flush) {
    throw MachineSpecError(d.id, "no_flush",
                           "cache=none with no_flush cannot be expressed in libvirt: its cache "
                           "modes give O_DIRECT only with flushes passed on (none, directsync); "
                           "use cache=writeback (libvirt cache='unsafe') or the qemu backend");
  }
  return "none";
}

// A disk libvirt models as a <disk>: neither on <qemu:commandline> nor a <hostdev>.
bool IsLibvirtDisk(const DiskSpec& d) { return !OnQemuCommandline(d) && !IsHostdev(d); }

void ValidateForLibvirt(const MachineSpec& spec) {
  // The QEMU backend's socket paths do not exist here; a short run_dir keeps its
  // sun_path check from judging a directory libvirt never puts sockets in.
  MachineSpec probe = spec;
  probe.run_dir = spec.run_dir.empty() ? "" : "/r";
  ValidateMachineSpec(probe, PathsIn(probe.run_dir));
  for (const DiskSpec& d : spec.disks) {
    // qemu_argv's own options all work; a passed-through device has no cache mode.
    if (!IsLibvirtDisk(d)) continue;
    LibvirtCache(d);
    if (d.id.find('.') != std::string::npos) {
      throw MachineSpecError(d.id, "id",
                             "\"" + d.id + "\" becomes the libvirt alias ua-" + d.id +
                                 ", and aliases allow only [A-Za-z0-9_-]");
    }
  }
}

std::string Attr(const std::string& name, const std::string& value) {
  return " " + name + "='" + XmlEscape(value) + "'";
}

// A disk libvirt models itself, on the bus its row names (virtio, sata).
void WriteLibvirtDisk(std::ostream& x, const MachineSpec& spec, const DiskSpec& d,
                      const std::string& path, int iothread) {
  // A host block device is <disk type='block'>: libvirt then gives QEMU host_device.
  const bool block = DiskDriverOf(d.driver).block_device;
  x << "    <disk type='" << (block ? "block" : "file") << "' device='disk'>\n"
    << "      <driver name='qemu'" << Attr("type", d.format) << Attr("cache", LibvirtCache(d))
    << Attr("io", ToString(d.aio));
  if (HasVirtqueues(d.bus)) {
    x << Attr("queues", std::to_string(d.num_queues))
      << Attr("queue_size", std::to_string(d.queue_size));
  }
  if (iothread > 0) x << Attr("iothread", std::to_string(iothread));
  x << "/>\n"
    << "      <source" << Attr(block ? "dev" : "file", path) << "/>\n"
    << "      <target" << Attr("dev", TargetDev(spec, d)) << Attr("bus", RowOf(d.bus).libvirt_bus)
    << "/>\n"
    << "      <serial>" << XmlEscape(d.serial.empty() ? d.id : d.serial) << "</serial>\n"
    << "      <alias" << Attr("name", LibvirtDeviceId(d)) << "/>\n"
    << "    </disk>\n";
}

// A PCI device the guest gets whole. managed='no': storbed has bound it to vfio-pci
// already (guest_target.cc) and gives it back to its driver itself, also after a kill.
void WriteHostdev(std::ostream& x, const DiskSpec& d) {
  // ValidateMachineSpec has checked the address: DDDD:BB:SS.F.
  const std::string& a = d.vfio_host;
  x << "    <hostdev mode='subsystem' type='pci' managed='no'>\n"
    << "      <driver name='vfio'/>\n"
    << "      <source>\n"
    << "        <address" << Attr("domain", "0x" + a.substr(0, 4)) << Attr("bus", "0x" + a.substr(5, 2))
    << Attr("slot", "0x" + a.substr(8, 2)) << Attr("function", "0x" + a.substr(11, 1)) << "/>\n"
    << "      </source>\n"
    << "      <alias" << Attr("name", LibvirtDeviceId(d)) << "/>\n"
    << "    </hostdev>\n";
}

void WriteOwner(std::ostream& x, const DomainOwner& o) {
  x << "  <metadata>\n"
    << "    <storbed:run" << Attr("xmlns:storbed", kOwnerNamespace) << Attr("session", o.session)
    << Attr("pid", std::to_string(o.pid)) << Attr("host", o.host) << Attr("started", o.started)
    << "/>\n"
    << "  </metadata>\n";
}

// pcie.0 slot 0x10 upwards; libvirt fills slots from 1 and keeps 0x1f for the chipset.
std::string PciSlot(int index) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", 0x10 + index);
  return buf;
}

// True for a -device line of a bus's model that is a PCI function of its own (the disk's
// or its controller's): libvirt must not place it.
bool IsPciFunctionDevice(const std::string& arg) {
  for (const BusRow& row : BusTable()) {
    if (!row.pci_function) continue;
    const std::string model = row.controller_model ? row.controller_model : row.device_model;
    if (arg.rfind(model + ",", 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string DomainName(const std::string& session, const std::string& machine_name) {
  if (!IsSafeName(session)) {
    throw MachineSpecError("", "session",
                           "\"" + session + "\" must be [A-Za-z0-9._-]+ (it is part of the "
                           "libvirt domain name)");
  }
  if (!IsSafeName(machine_name)) {
    throw MachineSpecError("", "name", "\"" + machine_name + "\" must be [A-Za-z0-9._-]+");
  }
  return std::string(kDomainPrefix) + session + "-" + machine_name;
}

bool IsHostdev(const DiskSpec& disk) { return !disk.vfio_host.empty(); }

std::string DevName(const std::string& prefix, int index) {
  // vda..vdz, then vdaa.. as libvirt counts.
  std::string suffix;
  for (int n = index + 1; n > 0; n = (n - 1) / 26) suffix.insert(suffix.begin(), char('a' + (n - 1) % 26));
  return prefix + suffix;
}

bool OnQemuCommandline(const DiskSpec& disk) {
  if (IsHostdev(disk)) return false;
  const DiskDriverRow* driver = FindDiskDriver(disk.driver);
  return RowOf(disk.bus).libvirt_bus == nullptr || (driver && !driver->libvirt_native);
}

std::string LibvirtDeviceId(const DiskSpec& disk) {
  return (OnQemuCommandline(disk) ? "dev-" : "ua-") + disk.id;
}

std::string TargetDev(const MachineSpec& spec, const DiskSpec& disk) {
  if (!IsLibvirtDisk(disk)) return "";
  // libvirt counts each prefix on its own: vda, vdb, ... beside sda, sdb, ...
  const std::string prefix = RowOf(disk.bus).libvirt_dev_prefix;
  int index = 0;
  for (const DiskSpec& d : spec.disks) {
    if (&d == &disk || d.id == disk.id) break;
    if (IsLibvirtDisk(d) && prefix == RowOf(d.bus).libvirt_dev_prefix) ++index;
  }
  // A foreign guest's root disk is the first virtio disk (vda): the others move up one.
  if (spec.foreign && prefix == kVirtioDevPrefix) ++index;
  return DevName(prefix, index);
}

namespace {

// A foreign guest's root: the qcow2 overlay storbed made, as the first virtio disk (/dev/vda)
// like AppendForeignRoot. libvirt probes the overlay's backing chain (the image, with the
// format qemu-img recorded) and opens the image read-only; the domain's relabel='no' keeps
// its owner. No cache mode: QEMU's default (writeback), as under the QEMU backend.
void WriteForeignRoot(std::ostream& x, const ForeignRoot& root, bool boots_from_disk) {
  x << "    <disk type='file' device='disk'>\n"
    << "      <driver name='qemu' type='qcow2'/>\n"
    << "      <source" << Attr("file", root.overlay) << "/>\n"
    << "      <target" << Attr("dev", DevName(kVirtioDevPrefix, 0)) << " bus='virtio'/>\n"
    << "      <serial>" << kForeignRootSerial << "</serial>\n";
  if (boots_from_disk) x << "      <boot order='1'/>\n";
  x << "    </disk>\n";
}

// The cloud-init way's seed and agent disks, read-only, after the disks under test (their
// target devs follow the last virtio one) like AppendCloudInitDisks.
void WriteCloudInitDisks(std::ostream& x, const MachineSpec& spec) {
  const ForeignRoot& root = *spec.foreign;
  if (root.seed_image.empty()) return;
  int index = 1;  // after the root disk
  for (const DiskSpec& d : spec.disks)
    if (IsLibvirtDisk(d) && RowOf(d.bus).libvirt_dev_prefix == std::string(kVirtioDevPrefix))
      ++index;
  const std::pair<const char*, const std::string*> disks[] = {
      {kSeedDiskSerial, &root.seed_image}, {kAgentDiskSerial, &root.agent_disk}};
  for (const auto& [serial, path] : disks) {
    x << "    <disk type='file' device='disk'>\n"
      << "      <driver name='qemu' type='raw'/>\n"
      << "      <source" << Attr("file", *path) << "/>\n"
      << "      <target" << Attr("dev", DevName(kVirtioDevPrefix, index++)) << " bus='virtio'/>\n"
      << "      <serial>" << serial << "</serial>\n"
      << "      <readonly/>\n"
      << "    </disk>\n";
  }
}

// The disks libvirt has no <disk> form for (OnQemuCommandline), as QEMU arguments.
void WriteQemuCommandline(std::ostream& x, const MachineSpec& spec, const DomainPlacement& p) {
  x << "  <qemu:commandline>\n";
  int pci_index = 0;
  for (size_t i = 0; i < spec.disks.size(); ++i) {
    if (!OnQemuCommandline(spec.disks[i])) continue;
    DiskSpec on_host = spec.disks[i];
    on_host.backing = p.disk_paths[i];
    for (std::string arg : DiskArgv(on_host)) {
      // libvirt does not know this device and gives pcie.0 slots from 1 up to its own
      // root ports, which QEMU would then find taken: pin it far above them. Like the
      // QEMU backend's, it stays an integrated endpoint on pcie.0.
      if (IsPciFunctionDevice(arg)) arg += ",bus=pcie.0,addr=" + PciSlot(pci_index++);
      x << "    <qemu:arg" << Attr("value", arg) << "/>\n";
    }
  }
  x << "  </qemu:commandline>\n";
}

void WriteMergingOverride(std::ostream& x, const MachineSpec& spec) {
  // libvirt has no request-merging attribute; set the frontend property explicitly either
  // way, so the -device line says what BuildQemuArgv says.
  auto merging = [](const DiskSpec& d) {
    return IsLibvirtDisk(d) && RowOf(d.bus).merging_prop != nullptr;
  };
  if (std::any_of(spec.disks.begin(), spec.disks.end(), merging)) {
    x << "  <qemu:override>\n";
    for (const DiskSpec& d : spec.disks) {
      if (!merging(d)) continue;
      x << "    <qemu:device" << Attr("alias", LibvirtDeviceId(d)) << ">\n"
        << "      <qemu:frontend>\n"
        << "        <qemu:property" << Attr("name", RowOf(d.bus).merging_prop)
        << " type='bool' value='" << (d.request_merging ? "true" : "false") << "'/>\n"
        << "      </qemu:frontend>\n"
        << "    </qemu:device>\n";
    }
    x << "  </qemu:override>\n";
  }
}

// <os> (the kernel, initrd and command line, when booted directly), the CPU and clock,
// and what ends the domain.
void WriteBootAndLifecycle(std::ostream& x, const MachineSpec& spec, const DomainPlacement& p) {
  const bool kvm = spec.accel == Accel::Kvm;
  x << "  <os>\n"
    << "    <type arch='x86_64' machine='q35'>hvm</type>\n";
  // No kernel (a foreign image booted by its own bootloader): the root disk's <boot order>.
  if (!p.kernel.empty()) x << "    <kernel>" << XmlEscape(p.kernel) << "</kernel>\n";
  if (!p.initrd.empty()) x << "    <initrd>" << XmlEscape(p.initrd) << "</initrd>\n";
  if (!spec.cmdline.empty()) x << "    <cmdline>" << XmlEscape(spec.cmdline) << "</cmdline>\n";
  x << "  </os>\n"
    // Without <acpi/> libvirt passes -no-acpi and the agent's power-off only halts.
    << "  <features><acpi/></features>\n"
    // "-cpu host" under KVM, "-cpu max" under TCG, as qemu_argv.
    << "  <cpu mode='" << (kvm ? "host-passthrough" : "maximum") << "' check='none'/>\n"
    << "  <clock offset='utc'/>\n"
    << "  <on_poweroff>destroy</on_poweroff>\n"
    // The agent is PID 1: a reboot would rerun it. Like -no-reboot, end the domain.
    << "  <on_reboot>destroy</on_reboot>\n"
    << "  <on_crash>destroy</on_crash>\n";
}

// <devices>: the emulator, the disks (libvirt's own and host devices), the console, the
// agent's channel (and qemu-ga's for a foreign guest).
void WriteDevices(std::ostream& x, const MachineSpec& spec, const DomainPlacement& p) {
  x << "  <devices>\n";
  if (spec.qemu_binary.rfind('/', 0) == 0) {
    x << "    <emulator>" << XmlEscape(spec.qemu_binary) << "</emulator>\n";
  }
  if (spec.foreign) WriteForeignRoot(x, *spec.foreign, p.kernel.empty());
  int next_iothread = 1;
  for (size_t i = 0; i < spec.disks.size(); ++i) {
    const DiskSpec& d = spec.disks[i];
    if (OnQemuCommandline(d)) continue;
    if (IsHostdev(d))
      WriteHostdev(x, d);
    else
      WriteLibvirtDisk(x, spec, d, p.disk_paths[i], d.iothread ? next_iothread++ : 0);
  }
  if (spec.foreign) WriteCloudInitDisks(x, spec);
  x << "    <controller type='usb' model='none'/>\n"
    << "    <serial type='file'>\n"
    << "      <source" << Attr("path", p.console_path) << "/>\n"
    << "      <target port='0'/>\n"
    << "    </serial>\n"
    << "    <channel type='unix'>\n"
    << "      <source mode='bind'/>\n"
    << "      <target type='virtio'" << Attr("name", kAgentPortName) << "/>\n"
    << "      <alias" << Attr("name", kAgentChannelAlias) << "/>\n"
    << "    </channel>\n";
  if (spec.foreign && spec.foreign->HasQgaChannel()) {
    // libvirt connects to qemu-ga itself (virDomainQemuAgentCommand) on a socket it names.
    x << "    <channel type='unix'>\n"
      << "      <source mode='bind'/>\n"
      << "      <target type='virtio'" << Attr("name", kQemuGuestAgentPortName) << "/>\n"
      << "    </channel>\n";
  }
  x << "    <memballoon model='none'/>\n"
    << "  </devices>\n";
}

}  // namespace

std::string BuildDomainXml(const MachineSpec& spec, const DomainPlacement& p) {
  ValidateForLibvirt(spec);
  if (p.disk_paths.size() != spec.disks.size()) {
    throw std::logic_error("BuildDomainXml: one disk path per disk expected");
  }
  const bool kvm = spec.accel == Accel::Kvm;
  int iothreads = 0;  // libvirt's, for its own disks; qemu:commandline disks bring theirs
  bool has_commandline_disk = false;
  for (const DiskSpec& d : spec.disks) {
    iothreads += d.iothread && IsLibvirtDisk(d) ? 1 : 0;  // ValidateDisk: virtio only
    has_commandline_disk |= OnQemuCommandline(d);
  }

  std::ostringstream x;
  x << "<domain type='" << (kvm ? "kvm" : "qemu")
    << "' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
    << "  <name>" << XmlEscape(p.domain_name) << "</name>\n";
  WriteOwner(x, p.owner);
  x << "  <memory unit='MiB'>" << spec.memory_mib << "</memory>\n"
    << "  <vcpu>" << spec.vcpus << "</vcpu>\n";
  if (iothreads > 0) x << "  <iothreads>" << iothreads << "</iothreads>\n";
  WriteBootAndLifecycle(x, spec, p);
  WriteDevices(x, spec, p);
  if (has_commandline_disk || spec.foreign) {
    // libvirt's DAC driver relabels only the files it knows; QEMU (libvirt-qemu) could not
    // open a backing given on <qemu:commandline>. And for a foreign root it would chown the
    // whole backing chain, the user's image included, and give back only the overlay. So
    // this domain's QEMU runs as root and nothing is relabelled.
    x << "  <seclabel type='static' model='dac' relabel='no'><label>+0:+0</label></seclabel>\n";
  }
  if (has_commandline_disk) WriteQemuCommandline(x, spec, p);
  WriteMergingOverride(x, spec);
  x << "</domain>\n";
  return x.str();
}

std::optional<DomainOwner> OwnerOf(const std::string& xml) {
  const std::optional<XmlDoc> doc = XmlDoc::Parse(xml);
  if (!doc) return std::nullopt;
  const XmlNamespaces ns{{"storbed", kOwnerNamespace}};
  auto attribute = [&](const std::string& name) {
    return doc->First("(//storbed:run)[1]/@" + name, ns);
  };
  const std::optional<std::string> session = attribute("session");
  if (!session) return std::nullopt;
  DomainOwner owner{.session = *session,
                    .host = attribute("host").value_or(""),
                    .started = attribute("started").value_or("")};
  try {
    owner.pid = std::stoi(attribute("pid").value_or(""));
  } catch (const std::exception&) {
    owner.pid = 0;
  }
  return owner;
}

bool DomainMentions(const std::string& domain_xml, const std::string& path) {
  const std::optional<XmlDoc> doc = XmlDoc::Parse(domain_xml);
  return !doc || doc->AnyValueContains(path);
}

}  // namespace storbed

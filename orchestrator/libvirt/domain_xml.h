// MachineSpec -> libvirt domain XML: the same q35 guest backend_qemu boots (direct kernel
// boot, serial console to a file, the agent on a virtio-serial channel, one disk per
// DiskSpec; for a foreign image its overlay as root disk and a qemu-ga channel), as a
// transient domain. Pure functions; nothing here talks to libvirt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/machine_spec.h"
#include "xml_escape.h"

namespace storbed {

// Who created a domain: stored in the domain's <metadata> so `storbed cleanup` can tell
// its own leftovers from another run's.
struct DomainOwner {
  std::string session;
  int pid = 0;
  std::string host;
  std::string started;  // UTC, "2024-05-01T12:00:00Z"
};

// Where the guest's files are on the libvirt host (volume paths, or local paths used in
// place), and what the domain is called.
struct DomainPlacement {
  std::string domain_name;
  std::string kernel, initrd;
  std::vector<std::string> disk_paths;  // one per spec.disks, same order
  std::string console_path;             // the serial console's file
  DomainOwner owner;
};

// The user alias of storbed's agent channel; QEMU's chardev behind it is "char" + alias,
// the label QMP query-chardev lists it under.
inline constexpr const char* kAgentChannelAlias = "ua-agent";
inline constexpr const char* kAgentChardevLabel = "charua-agent";

// The target dev prefix of libvirt's virtio disks.
inline constexpr const char* kVirtioDevPrefix = "vd";

// The metadata element's namespace.
inline constexpr const char* kOwnerNamespace = "https://storbed.dev/xmlns/run/1";

// kDomainPrefix + session + "-" + machine_name. Throws MachineSpecError when session or
// name holds characters other than [A-Za-z0-9._-].
std::string DomainName(const std::string& session, const std::string& machine_name);

// True for a passed-through PCI device (vfio_host): a <hostdev>, neither <disk> nor
// <qemu:commandline>, so that libvirt gives QEMU the /dev/vfio group and the locked memory
// limit VFIO needs.
bool IsHostdev(const DiskSpec& disk);

// True for a disk libvirt 9.0 cannot express as a <disk>: a bus whose row has no
// libvirt_bus (NVMe: no emulated controller; virtio-scsi: storbed gives each disk its own
// controller, with queues and iothread) or a driver libvirt lacks (null-co). Such disks go
// on <qemu:commandline> with qemu_argv's options verbatim; libvirt does not know them, so
// their stats come from QMP.
bool OnQemuCommandline(const DiskSpec& disk);

// The device id QEMU gets for `disk` under libvirt: the user alias "ua-<id>" for a disk
// libvirt models (it passes aliases through as -device id=), and qemu_argv's own id
// "dev-<id>" for a <qemu:commandline> disk, whose -device comes verbatim from qemu_argv.
std::string LibvirtDeviceId(const DiskSpec& disk);

// The target dev of the disk at `index` (from 0) among those of `prefix`, as libvirt counts:
// vda..vdz, vdaa, ...
std::string DevName(const std::string& prefix, int index);

// The guest-visible target dev libvirt gives the disk ("vda", "vdb", "sda", ...: the bus
// row's prefix; virtio ones after a foreign guest's root disk, vda), which is also the
// block.N.name of its bulk stats. "" for a <qemu:commandline> disk (libvirt does not know
// it) and for a <hostdev>.
std::string TargetDev(const MachineSpec& spec, const DiskSpec& disk);

// The full domain XML. Validates the spec like BuildQemuArgv and adds what libvirt cannot
// say: cache=none with no_flush throws MachineSpecError (libvirt's cache modes have no
// O_DIRECT-without-flushes), as does a disk id that is not a valid libvirt alias.
std::string BuildDomainXml(const MachineSpec& spec, const DomainPlacement& placement);

// The owner stored by BuildDomainXml, read back from a domain's XML (libvirt may
// re-serialise it with other quoting). nullopt when the domain carries none.
std::optional<DomainOwner> OwnerOf(const std::string& domain_xml);

// True when `path` is in some attribute value or text of a domain's XML (a disk's source,
// the kernel, a <qemu:commandline> argument), decoded; also true when the XML cannot be
// read, so that a volume stays rather than being removed from under a domain.
bool DomainMentions(const std::string& domain_xml, const std::string& path);

}  // namespace storbed

// Turns a MachineSpec into the qemu-system-x86_64 argv: q35 machine, direct kernel boot,
// console to a file, the agent on a virtio-serial port, QMP on a unix socket, and one
// -blockdev pair plus a -device per disk. No shell is involved anywhere.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "backend/machine_spec.h"
#include "error.h"

namespace storbed {

// Where QEMU puts its sockets and logs for one machine.
struct MachinePaths {
  std::string agent_socket;  // virtio-serial chardev, the agent link
  std::string qmp_socket;
  std::string console_log;   // guest serial console
  std::string pid_file;
  std::string qga_socket;    // the QEMU guest agent's channel (foreign guests only)
};

// The serial of a foreign guest's root disk, so the agent's device list names it plainly.
inline constexpr const char* kForeignRootSerial = "storbed-root";
// The virtio-serial port name qemu-ga opens (its udev rule starts it when this appears).
inline constexpr const char* kQemuGuestAgentPortName = "org.qemu.guest_agent.0";

// A spec QEMU would refuse (or that cannot mean what it says). Names the disk and field.
class MachineSpecError : public Error {
 public:
  MachineSpecError(const std::string& disk_id, const std::string& field,
                   const std::string& problem);
  const std::string& disk_id() const { return disk_id_; }  // "" for machine-level fields
  const std::string& field() const { return field_; }

 private:
  std::string disk_id_;
  std::string field_;
};

// The standard file names inside run_dir.
MachinePaths PathsIn(const std::string& run_dir);

// Throws MachineSpecError for the first problem found.
void ValidateMachineSpec(const MachineSpec& spec, const MachinePaths& paths);

// The full argv, argv[0] = spec.qemu_binary. Validates first (MachineSpecError).
std::vector<std::string> BuildQemuArgv(const MachineSpec& spec, const MachinePaths& paths);

// The -blockdev options of the disk's protocol node "file-<id>" (file, host_device or
// null-co). The format node "disk-<id>" sits on it.
std::string ProtocolNodeOptions(const DiskSpec& disk);

// The arguments BuildQemuArgv writes for this one disk (-object iothread when asked, the
// -blockdev protocol and format nodes, the -device line(s)). Validates the disk first
// (MachineSpecError). The libvirt backend passes them verbatim on <qemu:commandline>.
std::vector<std::string> DiskArgv(const DiskSpec& disk);

// The id of the controller (of a bus whose row has one) that carries only the disk with
// `device_id`: "dev-d0-scsi".
std::string ControllerId(Bus bus, const std::string& device_id);

// One human-readable line per disk for manifests, including what request_merging did.
std::string DescribeDisk(const DiskSpec& disk);

}  // namespace storbed

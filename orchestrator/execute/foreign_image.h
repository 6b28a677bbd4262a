// A foreign guest image (machine.image): a distribution's disk image that storbed boots
// with its own kernel and never writes. QEMU writes to a qcow2 overlay in storbed's private
// work directory instead, discarded with it; the image's sha256 is taken before and after.
#pragma once

#include <string>

#include "images/image_builder.h"
#include "scenario/scenario.h"

namespace storbed {

// machine.kernel "disk": no -kernel, the image's own bootloader boots it.
inline constexpr const char* kBootFromDisk = "disk";

// "qcow2" when the file starts with the qcow2 magic, else "raw". Throws std::runtime_error
// naming the file when it cannot be read.
std::string ForeignImageFormat(const std::string& path);

// The problem with a foreign machine's fields, as "field: reason" (the caller adds the
// scenario file), or "" when machine.image is unset or everything is usable: the image
// readable, machine.kernel a bzImage or "disk", machine.initrd readable, machine.append
// given with a kernel; and without machine.image, no machine.initrd or machine.append.
std::string ForeignMachineProblem(const MachineConfig& machine);

// The guest image record of a foreign machine: its external kernel (or none, "disk") and
// initrd as they are, hashed, nothing built.
GuestImage ForeignGuestImage(const MachineConfig& machine);

// qemu-img create -f qcow2 -b image -F format overlay. Throws std::runtime_error with
// qemu-img's output.
void CreateOverlay(const std::string& image, const std::string& format, const std::string& overlay);

}  // namespace storbed

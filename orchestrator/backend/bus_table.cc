#include "backend/bus_table.h"

#include <algorithm>
#include <stdexcept>

namespace storbed {
namespace {

// clang-format off
const BusRow kBuses[] = {
    {.bus = Bus::VirtioBlk, .name = "virtio-blk", .default_target = true,
     .help = "virtio-blk: a virtio-blk-pci disk",
     .device_model = "virtio-blk-pci", .controller_model = nullptr, .controller_suffix = "",
     .queues = QueueModel::Virtqueues, .queues_prop = "num-queues",
     .queue_size_prop = "queue-size", .merging_prop = "request-merging", .fixed_queue = "",
     .pci_function = true,
     .libvirt_bus = "virtio", .libvirt_dev_prefix = "vd",
     .guest_modules = {"virtio_pci", "virtio_blk", nullptr}, .guest_dev_prefix = "vd",
     .virtqueue = VirtqueueOwner::Device, .first_request_queue = 0,
     .no_virtqueue_reason = ""},
    {.bus = Bus::Nvme, .name = "nvme", .default_target = true,
     .help = "nvme: an emulated NVMe controller",
     .device_model = "nvme", .controller_model = nullptr, .controller_suffix = "",
     .queues = QueueModel::NvmeQueuePairs, .queues_prop = "max_ioqpairs",
     .queue_size_prop = nullptr, .merging_prop = nullptr, .fixed_queue = "",
     .pci_function = true,
     .libvirt_bus = nullptr, .libvirt_dev_prefix = "",
     .guest_modules = {"nvme", nullptr, nullptr}, .guest_dev_prefix = "nvme",
     .virtqueue = VirtqueueOwner::None, .first_request_queue = 0,
     .no_virtqueue_reason = kNvmeNoVirtqueue},
    // One controller per disk, so its queues and iothread belong to this disk alone.
    // Queue 0 of a virtio-scsi controller is control, 1 events, requests from 2 on.
    {.bus = Bus::VirtioScsi, .name = "virtio-scsi", .default_target = false,
     .help = "virtio-scsi: a scsi-hd on a virtio-scsi-pci controller",
     .device_model = "scsi-hd", .controller_model = "virtio-scsi-pci",
     .controller_suffix = "-scsi",
     .queues = QueueModel::Virtqueues, .queues_prop = "num_queues",
     .queue_size_prop = "virtqueue_size", .merging_prop = nullptr, .fixed_queue = "",
     .pci_function = true,
     .libvirt_bus = nullptr, .libvirt_dev_prefix = "",
     .guest_modules = {"virtio_pci", "virtio_scsi", "sd_mod"}, .guest_dev_prefix = "sd",
     .virtqueue = VirtqueueOwner::Controller, .first_request_queue = 2,
     .no_virtqueue_reason = ""},
    // An ide-hd on q35's built-in ich9-ahci controller: a SATA disk, /dev/sdX through the
    // guest's ahci and libata (modules.dep brings libahci, libata, scsi_mod). libata answers
    // VPD page 0x80 with the ATA serial (serial=, 20 characters), as virtio-scsi's scsi-hd
    // does. Its queue is the port's NCQ tags, 32; QEMU exposes no depth for it.
    {.bus = Bus::Ahci, .name = "ahci", .default_target = false,
     .help = "ahci: an ide-hd SATA disk on q35's built-in ich9-ahci controller",
     .device_model = "ide-hd", .controller_model = nullptr, .controller_suffix = "",
     .queues = QueueModel::Fixed, .queues_prop = nullptr,
     .queue_size_prop = nullptr, .merging_prop = nullptr,
     .fixed_queue = "one AHCI port, NCQ depth 32 (fixed by the device)",
     .pci_function = false,
     .libvirt_bus = "sata", .libvirt_dev_prefix = "sd",
     .guest_modules = {"ahci", "sd_mod", nullptr}, .guest_dev_prefix = "sd",
     .virtqueue = VirtqueueOwner::None, .first_request_queue = 0,
     .no_virtqueue_reason =
         "AHCI is not a virtio device: its queue is the port's 32 NCQ tags, which QEMU does "
         "not expose"},
};
// clang-format on

}  // namespace

std::span<const BusRow> BusTable() { return kBuses; }

const BusRow& RowOf(Bus bus) {
  for (const BusRow& row : kBuses) {
    if (row.bus == bus) return row;
  }
  throw std::logic_error("disk bus without a row in bus_table.cc");
}

const BusRow* FindBusRow(std::string_view name) {
  for (const BusRow& row : kBuses) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

std::vector<std::string> BusNames() {
  std::vector<std::string> names;
  for (const BusRow& row : kBuses) names.push_back(row.name);
  return names;
}

std::vector<std::string> BusGuestModules() {
  std::vector<std::string> modules;
  for (const BusRow& row : kBuses) {
    for (const char* m : row.guest_modules) {
      if (m && std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
    }
  }
  return modules;
}

}  // namespace storbed

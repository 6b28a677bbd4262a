// One row per disk bus: everything storbed knows about a bus, in one place. qemu_argv builds
// the -device lines from it, domain_xml the libvirt disk, the image builder the guest module
// list, the virtqueue sampler its source, guest_target the disk and the scenario its target
// names. Adding a bus is one Bus value (machine_spec.h) and one row (bus_table.cc).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/machine_spec.h"

namespace storbed {

// How the disk's request queues are set, and so which scenario fields apply to it.
enum class QueueModel {
  Virtqueues,      // num_queues virtqueues of queue_size; an iothread may serve them
  NvmeQueuePairs,  // nvme_max_ioqpairs I/O queue pairs (from num_queues); no iothread
  Fixed,           // the device model fixes its queue (fixed_queue says how); no iothread
};

// Where the L2 virtqueue sampler finds the disk's queues.
enum class VirtqueueOwner { None, Device, Controller };

struct BusRow {
  Bus bus;
  const char* name;     // scenario target, results and manifest name: "virtio-blk"
  bool default_target;  // in a scenario's default targets
  const char* help;     // one phrase for the targets field's help text

  // QEMU. The disk is `device_model,drive=...,id=dev-<id>,serial=...`; with a controller
  // model, each disk gets its own controller `<controller_model>,id=dev-<id><suffix>` that
  // carries the queue options, and the disk sits on its bus "<controller id>.0".
  const char* device_model;
  const char* controller_model;   // nullptr: none of its own
  const char* controller_suffix;  // "-scsi"
  QueueModel queues;
  const char* queues_prop;      // QEMU property for the queue count, nullptr if none
  const char* queue_size_prop;  // QEMU property for the queue size, nullptr if none
  const char* merging_prop;     // QEMU request-merging property; nullptr: recorded only
  const char* fixed_queue;      // QueueModel::Fixed: what the device gives, for manifests
  bool pci_function;            // the device or its controller is a PCI function of its own

  // libvirt: a <disk> with <target bus=libvirt_bus dev=<prefix>X>, or nullptr: the
  // qemu_argv options verbatim on <qemu:commandline>.
  const char* libvirt_bus;
  const char* libvirt_dev_prefix;

  // Guest: the kernel modules the disk needs (modules.dep adds their dependencies) and
  // the prefix of its block device name; the agent reports each disk's serial.
  std::array<const char*, 3> guest_modules;
  const char* guest_dev_prefix;

  // The L2 virtqueue rung: the device's or its controller's virtio backend, from queue
  // first_request_queue on; or not available, with the reason.
  VirtqueueOwner virtqueue;
  int first_request_queue;
  const char* no_virtqueue_reason;
};

// The nvme row's reason for the L2 virtqueue rung (named for tests).
inline constexpr const char* kNvmeNoVirtqueue =
    "NVMe is not a virtio device: QEMU exposes no submission-queue depth";

// Every row, in Bus order.
std::span<const BusRow> BusTable();

// The row of `bus`. Throws std::logic_error for a Bus value without a row.
const BusRow& RowOf(Bus bus);

// The row named `name`, or nullptr.
const BusRow* FindBusRow(std::string_view name);

// The bus names in table order: "virtio-blk", "nvme", ...
std::vector<std::string> BusNames();

// The guest modules every bus needs, in table order, without repeats.
std::vector<std::string> BusGuestModules();

// True when num_queues, queue_size and iothread apply to the bus.
inline bool HasVirtqueues(Bus bus) { return RowOf(bus).queues == QueueModel::Virtqueues; }

}  // namespace storbed

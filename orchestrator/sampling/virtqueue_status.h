// The virtqueue rung (L2 virtqueue): how many requests QEMU's virtio-blk device holds,
// from QEMU 7.2's unstable x-query-virtio (devices and QOM paths), x-query-virtio-status
// {path} (num-vqs) and x-query-virtio-queue-status {path, queue} ("inuse": descriptors
// popped from the avail ring and not yet pushed to the used ring). Point samples, not a
// time integral: the average depth is the time-weighted mean of the samples.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/bus_table.h"
#include "backend/qmp_executor.h"
#include "error.h"
#include "ladder.h"

namespace storbed {

// A reply of the wrong shape (raw() keeps it) or a command that failed mid-run.
class VirtqueueError : public Error {
 public:
  VirtqueueError(const std::string& what, std::string raw)
      : Error(ErrorKind::Host, what), raw_(std::move(raw)) {}
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
};

// Where to sample, or why not.
struct VirtqueueTarget {
  bool available = false;
  std::string reason;  // why, when !available (the report adds "not available: ")
  std::string path;    // QOM path, e.g. "/machine/peripheral/dev-d0/virtio-backend"
  int num_queues = 0;
  int first_queue = 0;  // the first request queue (virtio-scsi: 2, after control and event)
};

// Finds the virtio device of the disk with id `device_id` ("dev-d0") as its bus row says
// (the device, its controller, or none: !available with the row's reason). Never throws for a
// missing command (CommandNotFound) or device: returns !available with the reason. Throws
// VirtqueueError for a malformed reply, QmpError/QmpConnectionError for other failures.
VirtqueueTarget ResolveVirtqueues(const QmpExecutor& qmp, const std::string& device_id, Bus bus);

// "inuse" of one x-query-virtio-queue-status reply. Throws VirtqueueError.
uint64_t ParseQueueInuse(const nlohmann::json& reply);

struct VirtqueueSample {
  uint64_t inuse_total = 0;
  std::vector<uint64_t> inuse_per_queue;
};
// Queries every queue of `target` (which must be available). Throws VirtqueueError,
// QmpError, QmpConnectionError.
VirtqueueSample SampleVirtqueues(const QmpExecutor& qmp, const VirtqueueTarget& target);

// The L2 virtqueue rung from point samples (times in s, values = inuse_total) over the
// window; !available with the reason when there are none.
LayerStats VirtqueueLayer(const VirtqueueTarget& target, const std::vector<double>& t_s,
                          const std::vector<double>& inuse, const std::string& source);

}  // namespace storbed

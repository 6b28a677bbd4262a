// QEMU's side of each guest request, rebuilt from its trace events: when QEMU took the
// request off the virtqueue (virtio-blk) or submission queue (NVMe), handed it to its block
// layer (blk_co_preadv / blk_co_pwritev), to the host (io_uring or the thread pool: aio
// io_uring and threads; aio native and null-co have no such event) and completed it.
// Requests are followed by virtio-blk's request pointer or NVMe's command id while open;
// the block layer's and host submissions are attached by the byte range they carry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tracing/qemu_trace_log.h"

namespace storbed {

enum class QemuBus { VirtioBlk, Nvme };

struct QemuRequest {
  uint64_t sector = 0, sectors = 0;  // the guest disk's 512-byte sectors
  bool write = false;
  // CLOCK_REALTIME ns as QEMU logged them; 0 = not seen.
  uint64_t pickup = 0;    // handle_read/write, pci_nvme_read/write
  uint64_t block = 0;     // blk_co_preadv / blk_co_pwritev
  uint64_t submit = 0;    // luring_co_submit / file_paio_submit
  uint64_t complete = 0;  // virtio_blk_rw_complete / pci_nvme_rw_complete_cb
  uint64_t file_offset = 0, file_bytes = 0;  // what the block layer asked of the backing
  bool merged = false;     // one block layer request carried several guest requests
  bool ambiguous = false;  // an event could belong to it or to another open request
};

struct QemuRequests {
  std::vector<QemuRequest> requests;  // in pickup order
  uint64_t never_completed = 0;       // picked up, no completion in the trace
  uint64_t stray_events = 0;          // completions or submissions no open request takes
};

// The events QEMU must log for `bus` (its trace-event-set-state names): where a request is
// picked up and completed; with `detail` also QEMU's block layer and host submissions.
// Each is a line QEMU's log backend writes and flushes in the thread that serves the disk.
std::vector<std::string> QemuTraceEventNames(QemuBus bus, bool detail);

// `events` in the log's order. `lba_bytes`: the NVMe namespace's logical block size.
QemuRequests BuildQemuRequests(const std::vector<QemuTraceEvent>& events, QemuBus bus,
                               uint32_t lba_bytes = 512);

}  // namespace storbed

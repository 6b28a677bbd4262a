#include "tracing/qemu_requests.h"

#include <map>

namespace storbed {
namespace {

// QEMU_AIO_READ and QEMU_AIO_WRITE (block/raw-aio.h): the `type` of the host submissions.
constexpr uint64_t kAioWrite = 0x0002;

// Where QEMU hands a request's bytes on: its block layer (blk_co_*), then the host (AIO).
enum class HandOff { BlockLayer, Host };

class Builder {
 public:
  explicit Builder(QemuRequests& out) : out_(out) {}

  void Open(uint64_t key, uint64_t t, uint64_t sector, uint64_t sectors, bool write) {
    if (open_.count(key)) ++out_.never_completed;  // its key came back without a completion
    QemuRequest r;
    r.pickup = t;
    r.sector = sector;
    r.sectors = sectors;
    r.write = write;
    out_.requests.push_back(r);
    open_[key] = out_.requests.size() - 1;
  }

  void Close(uint64_t key, uint64_t t) {
    const auto it = open_.find(key);
    if (it == open_.end()) {
      ++out_.stray_events;
      return;
    }
    out_.requests[it->second].complete = t;
    open_.erase(it);
  }

  // A range of the backing (bytes) handed on at `t`: to the block layer or the host. It
  // carries every open request of the same direction inside it that has no such time yet;
  // two such requests over the same bytes cannot be told apart.
  void Attach(uint64_t t, uint64_t offset, uint64_t bytes, bool write, HandOff to) {
    const bool block = to == HandOff::BlockLayer;
    std::vector<size_t> takers;
    for (const auto& [key, i] : open_) {
      QemuRequest& r = out_.requests[i];
      const uint64_t begin = r.sector * 512, end = begin + r.sectors * 512;
      const uint64_t have = block ? r.block : r.submit;
      if (r.write != write || have != 0 || begin < offset || end > offset + bytes) continue;
      if (!block && r.block == 0) continue;  // the host sees it after the block layer
      takers.push_back(i);
    }
    if (takers.empty()) {
      ++out_.stray_events;
      return;
    }
    for (size_t a = 0; a < takers.size(); ++a)
      for (size_t b = a + 1; b < takers.size(); ++b) {
        const QemuRequest& x = out_.requests[takers[a]];
        const QemuRequest& y = out_.requests[takers[b]];
        if (x.sector < y.sector + y.sectors && y.sector < x.sector + x.sectors)
          out_.requests[takers[a]].ambiguous = out_.requests[takers[b]].ambiguous = true;
      }
    for (const size_t i : takers) {
      QemuRequest& r = out_.requests[i];
      (block ? r.block : r.submit) = t;
      if (block) {
        r.file_offset = offset;
        r.file_bytes = bytes;
      }
      if (takers.size() > 1) r.merged = true;
    }
  }

  void Finish() { out_.never_completed += open_.size(); }

 private:
  QemuRequests& out_;
  std::map<uint64_t, size_t> open_;  // request pointer or command id -> request
};

}  // namespace

std::vector<std::string> QemuTraceEventNames(QemuBus bus, bool detail) {
  std::vector<std::string> names;
  if (detail) names = {"blk_co_preadv", "blk_co_pwritev", "luring_co_submit", "file_paio_submit"};
  if (bus == QemuBus::VirtioBlk) {
    for (const char* n : {"virtio_blk_handle_read", "virtio_blk_handle_write",
                          "virtio_blk_rw_complete"})
      names.push_back(n);
  } else {
    for (const char* n : {"pci_nvme_read", "pci_nvme_write", "pci_nvme_rw_complete_cb"})
      names.push_back(n);
  }
  return names;
}

QemuRequests BuildQemuRequests(const std::vector<QemuTraceEvent>& events, QemuBus bus,
                               uint32_t lba_bytes) {
  QemuRequests out;
  Builder b(out);
  const uint64_t lba_sectors = lba_bytes / 512;
  for (const QemuTraceEvent& e : events) {
    const uint64_t t = e.realtime_ns;
    const std::string& n = e.name;
    const bool virtio = bus == QemuBus::VirtioBlk;
    if (virtio && (n == "virtio_blk_handle_read" || n == "virtio_blk_handle_write")) {
      const auto req = e.Number("req"), sector = e.Number("sector"), count = e.Number("nsectors");
      if (req && sector && count) b.Open(*req, t, *sector, *count, n.back() == 'e');
    } else if (!virtio && (n == "pci_nvme_read" || n == "pci_nvme_write")) {
      const auto cid = e.Number("cid"), lba = e.Number("lba"), nlb = e.Number("nlb");
      if (cid && lba && nlb)
        b.Open(*cid, t, *lba * lba_sectors, *nlb * lba_sectors, n == "pci_nvme_write");
    } else if (virtio && n == "virtio_blk_rw_complete") {
      if (const auto req = e.Number("req")) b.Close(*req, t);
    } else if (!virtio && n == "pci_nvme_rw_complete_cb") {
      if (const auto cid = e.Number("cid")) b.Close(*cid, t);
    } else if (n == "blk_co_preadv" || n == "blk_co_pwritev") {
      const auto offset = e.Number("offset"), bytes = e.Number("bytes");
      if (offset && bytes) b.Attach(t, *offset, *bytes, n == "blk_co_pwritev", HandOff::BlockLayer);
    } else if (n == "luring_co_submit" || n == "file_paio_submit") {
      const auto offset = e.Number("offset");
      const auto bytes = n == "luring_co_submit" ? e.Number("nbytes") : e.Number("count");
      const auto type = e.Number("type");
      if (offset && bytes && type)
        b.Attach(t, *offset, *bytes, (*type & kAioWrite) != 0, HandOff::Host);
    }
  }
  b.Finish();
  return out;
}

}  // namespace storbed

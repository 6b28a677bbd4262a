#include "tracing/qemu_requests.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

std::vector<QemuTraceEvent> Events(const std::vector<std::string>& lines) {
  std::vector<QemuTraceEvent> out;
  for (const std::string& l : lines) out.push_back(*ParseQemuTraceLine(l));
  return out;
}

// As QEMU 7.2 logged a 4k and a 64k direct read of a null-co virtio-blk disk (the request
// pointer comes back for the next request once the first completed).
TEST(QemuRequests, VirtioBlkRequestsFollowTheirPointerAndTakeTheBlockLayersRange) {
  const QemuRequests r = BuildQemuRequests(
      Events({"6660@1796422153.457264:virtio_blk_handle_read vdev 0x1 req 0x5633d3362800 sector 816 nsectors 8",
              "6660@1796422153.457376:blk_co_preadv blk 0x2 bs 0x3 offset 417792 bytes 4096 flags 0x8",
              "6660@1796422153.458458:virtio_blk_rw_complete vdev 0x1 req 0x5633d3362800 ret 0",
              "6660@1796422153.466049:virtio_blk_handle_read vdev 0x1 req 0x5633d3362800 sector 1280 nsectors 128",
              "6660@1796422153.466143:blk_co_preadv blk 0x2 bs 0x3 offset 655360 bytes 65536 flags 0x8",
              "6660@1796422153.466200:luring_co_submit bs 0x3 s 0x4 luringcb 0x5 fd 12 offset 655360 nbytes 65536 type 1",
              "6660@1796422153.467225:virtio_blk_rw_complete vdev 0x1 req 0x5633d3362800 ret 0"}),
      QemuBus::VirtioBlk);
  ASSERT_EQ(r.requests.size(), 2u);
  const QemuRequest& a = r.requests[0];
  EXPECT_EQ(a.sector, 816u);
  EXPECT_EQ(a.sectors, 8u);
  EXPECT_FALSE(a.write);
  EXPECT_EQ(a.pickup, 1796422153457264000u);
  EXPECT_EQ(a.block, 1796422153457376000u);
  EXPECT_EQ(a.submit, 0u);  // null-co: nothing goes to the host
  EXPECT_EQ(a.complete, 1796422153458458000u);
  EXPECT_EQ(a.file_offset, 417792u);
  const QemuRequest& b = r.requests[1];
  EXPECT_EQ(b.submit, 1796422153466200000u);
  EXPECT_EQ(b.complete, 1796422153467225000u);
  EXPECT_EQ(r.never_completed, 0u);
  EXPECT_EQ(r.stray_events, 0u);
}

TEST(QemuRequests, NvmeRequestsFollowTheirCommandIdInLogicalBlocks) {
  const QemuRequests r = BuildQemuRequests(
      Events({"6796@1796422162.206815:pci_nvme_io_cmd cid 263 nsid 0x1 sqid 1 opc 0x2 opname 'NVME_NVM_CMD_READ'",
              "6796@1796422162.206828:pci_nvme_read cid 263 nsid 1 nlb 16 count 65536 lba 0x58",
              "6796@1796422162.206918:blk_co_preadv blk 0x5 bs 0x6 offset 360448 bytes 65536 flags 0x0",
              "6796@1796422162.210392:pci_nvme_rw_cb cid 263 blk ''",
              "6796@1796422162.210408:pci_nvme_rw_complete_cb cid 263 blk ''"}),
      QemuBus::Nvme, 4096);
  ASSERT_EQ(r.requests.size(), 1u);
  EXPECT_EQ(r.requests[0].sector, 0x58u * 8);
  EXPECT_EQ(r.requests[0].sectors, 128u);
  EXPECT_EQ(r.requests[0].block, 1796422162206918000u);
  EXPECT_EQ(r.requests[0].complete, 1796422162210408000u);
}

// Request merging: one block layer request for two adjacent guest requests carries both.
TEST(QemuRequests, AMergedBlockRequestCarriesEveryRequestInsideIt) {
  const QemuRequests r = BuildQemuRequests(
      Events({"1@1.000001:virtio_blk_handle_write vdev 0x1 req 0xa sector 0 nsectors 8",
              "1@1.000002:virtio_blk_handle_write vdev 0x1 req 0xb sector 8 nsectors 8",
              "1@1.000003:blk_co_pwritev blk 0x2 bs 0x3 offset 0 bytes 8192 flags 0x0",
              "1@1.000004:file_paio_submit acb 0x4 opaque 0x5 offset 0 count 8192 type 2",
              "1@1.000009:virtio_blk_rw_complete vdev 0x1 req 0xa ret 0",
              "1@1.000010:virtio_blk_rw_complete vdev 0x1 req 0xb ret 0"}),
      QemuBus::VirtioBlk);
  ASSERT_EQ(r.requests.size(), 2u);
  for (const QemuRequest& q : r.requests) {
    EXPECT_TRUE(q.write);
    EXPECT_TRUE(q.merged);
    EXPECT_FALSE(q.ambiguous);
    EXPECT_EQ(q.submit, 1000004000u);
  }
}

TEST(QemuRequests, TheSameBytesTwiceInFlightAreAmbiguousAndLostEndsAreCounted) {
  const QemuRequests r = BuildQemuRequests(
      Events({"1@1.000001:virtio_blk_handle_read vdev 0x1 req 0xa sector 0 nsectors 8",
              "1@1.000002:virtio_blk_handle_read vdev 0x1 req 0xb sector 0 nsectors 8",
              "1@1.000003:blk_co_preadv blk 0x2 bs 0x3 offset 0 bytes 4096 flags 0x0",
              "1@1.000004:virtio_blk_rw_complete vdev 0x1 req 0xc ret 0",
              "1@1.000005:virtio_blk_handle_read vdev 0x1 req 0xd sector 64 nsectors 8"}),
      QemuBus::VirtioBlk);
  ASSERT_EQ(r.requests.size(), 3u);
  EXPECT_TRUE(r.requests[0].ambiguous);
  EXPECT_TRUE(r.requests[1].ambiguous);
  EXPECT_EQ(r.stray_events, 1u);      // the completion of 0xc, never picked up here
  EXPECT_EQ(r.never_completed, 3u);   // 0xa, 0xb and 0xd
}

}  // namespace
}  // namespace storbed

#include "tracing/qemu_trace_log.h"

#include <gtest/gtest.h>

#include <fstream>

namespace storbed {
namespace {

// Lines as Debian's QEMU 7.2 wrote them (-D file -msg timestamp=on) for a TCG guest.
TEST(QemuTraceLog, ReadsVirtioBlkAndNvmeEvents) {
  const auto r = ParseQemuTraceLine(
      "6660@1796422153.457264:virtio_blk_handle_read vdev 0x5633d42c3430 req 0x5633d3362800 "
      "sector 816 nsectors 8");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->thread, 6660u);
  EXPECT_EQ(r->realtime_ns, 1796422153457264000u);
  EXPECT_EQ(r->name, "virtio_blk_handle_read");
  EXPECT_EQ(r->Number("sector"), 816u);
  EXPECT_EQ(r->Number("req"), 0x5633d3362800u);
  EXPECT_EQ(r->Number("absent"), std::nullopt);
  const auto n = ParseQemuTraceLine(
      "6796@1796422162.206815:pci_nvme_io_cmd cid 263 nsid 0x1 sqid 1 opc 0x2 opname "
      "'NVME_NVM_CMD_READ'");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->Number("nsid"), 1u);
  EXPECT_EQ(n->Text("opname"), "NVME_NVM_CMD_READ");
  const auto c = ParseQemuTraceLine("6796@1796422162.210408:pci_nvme_rw_complete_cb cid 263 blk ''");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->Text("blk"), "");
  EXPECT_EQ(c->Number("cid"), 263u);
  const auto l = ParseQemuTraceLine(
      "6796@1796422162.206828:pci_nvme_read cid 263 nsid 1 nlb 128 count 65536 lba 0x580");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->Number("lba"), 0x580u);
}

TEST(QemuTraceLog, QemusOwnMessagesAreNoEventsButACutEventIsAnError) {
  EXPECT_FALSE(ParseQemuTraceLine("qemu-system-x86_64: terminating on signal 15"));
  EXPECT_FALSE(ParseQemuTraceLine(""));
  EXPECT_THROW(ParseQemuTraceLine("6660@1796422153.457264:virtio_blk_rw_complete vdev 0x1 req"),
               QemuTraceParseError);
  EXPECT_THROW(ParseQemuTraceLine("6796@1796422162.2:pci_nvme_rw_complete_cb cid 263 blk '"),
               QemuTraceParseError);
}

TEST(QemuTraceLog, ReadsFromAnOffsetKeepsOnlyWantedEventsAndLeavesAHalfLine) {
  const std::string path = ::testing::TempDir() + "/qemu-trace.log";
  {
    std::ofstream out(path);
    out << "1@1.000001:virtio_blk_handle_read vdev 0x1 req 0x2 sector 8 nsectors 8\n"
        << "1@1.000002:virtqueue_pop vq 0x3 elem 0x2 in_num 2 out_num 1\n"
        << "qemu-system-x86_64: warning: something\n"
        << "1@1.000009:virtio_blk_rw_complete vdev 0x1 req 0x2 ret 0\n"
        << "1@1.000010:virtio_blk_handle_re";
  }
  const QemuTraceRead all =
      ReadQemuTraceLog(path, 0, {"virtio_blk_handle_read", "virtio_blk_rw_complete"});
  ASSERT_EQ(all.events.size(), 2u);
  EXPECT_EQ(all.events[1].name, "virtio_blk_rw_complete");
  EXPECT_EQ(all.other_lines, 2u);
  EXPECT_TRUE(all.complete);
  const QemuTraceRead tail = ReadQemuTraceLog(path, all.end_offset);
  EXPECT_TRUE(tail.events.empty());
  EXPECT_EQ(tail.end_offset, all.end_offset);
  EXPECT_THROW(ReadQemuTraceLog(path + ".absent", 0), std::runtime_error);
}

}  // namespace
}  // namespace storbed

#include "backend/machine_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace storbed {
namespace {

using ::testing::HasSubstr;

TEST(MachineSpecTest, NamesRoundTrip) {
  for (Bus b : {Bus::VirtioBlk, Bus::Nvme, Bus::VirtioScsi}) EXPECT_EQ(ParseBus(ToString(b)), b);
  for (Aio a : {Aio::Threads, Aio::Native, Aio::IoUring}) EXPECT_EQ(ParseAio(ToString(a)), a);
  for (CacheMode c : {CacheMode::None, CacheMode::Writeback}) {
    EXPECT_EQ(ParseCacheMode(ToString(c)), c);
  }
  for (Accel a : {Accel::Kvm, Accel::Tcg}) EXPECT_EQ(ParseAccel(ToString(a)), a);
}

TEST(MachineSpecTest, NamesMatchQemuSpelling) {
  EXPECT_EQ(ToString(Bus::VirtioBlk), "virtio-blk");
  EXPECT_EQ(ToString(Aio::IoUring), "io_uring");
  EXPECT_EQ(ToString(CacheMode::Writeback), "writeback");
  EXPECT_EQ(ToString(Accel::Kvm), "kvm");
}

TEST(MachineSpecTest, UnknownValueListsAllowedOnes) {
  try {
    ParseAio("uring");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"uring\""));
    EXPECT_THAT(e.what(), HasSubstr("\"threads\", \"native\", \"io_uring\""));
  }
  EXPECT_THROW(ParseBus("scsi"), std::invalid_argument);
  EXPECT_THROW(ParseCacheMode("writethrough"), std::invalid_argument);
  EXPECT_THROW(ParseAccel("KVM"), std::invalid_argument);
}

TEST(MachineSpecTest, DefaultsAreTheDocumentedOnes) {
  DiskSpec d;
  EXPECT_EQ(d.bus, Bus::VirtioBlk);
  EXPECT_EQ(d.format, "raw");
  EXPECT_EQ(d.queue_size, 256u);
  EXPECT_EQ(d.cache, CacheMode::None);
  MachineSpec m;
  EXPECT_EQ(m.accel, Accel::Tcg);
  EXPECT_EQ(m.qemu_binary, "qemu-system-x86_64");
}

}  // namespace
}  // namespace storbed

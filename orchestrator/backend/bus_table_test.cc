#include "backend/bus_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace storbed {
namespace {

using ::testing::Contains;

// Every Bus value up to the last one; a new value past Ahci must be named here too,
// which the count check below then holds to exactly one row each.
constexpr int kBusCount = static_cast<int>(Bus::Ahci) + 1;

TEST(BusTableTest, EveryBusValueHasExactlyOneRow) {
  EXPECT_EQ(BusTable().size(), static_cast<size_t>(kBusCount));
  for (int i = 0; i < kBusCount; ++i) {
    const Bus bus = static_cast<Bus>(i);
    int rows = 0;
    for (const BusRow& row : BusTable()) rows += row.bus == bus ? 1 : 0;
    EXPECT_EQ(rows, 1) << "Bus value " << i;
    EXPECT_EQ(RowOf(bus).bus, bus);
  }
}

TEST(BusTableTest, RowsAreInBusOrderWithUniqueNames) {
  std::set<std::string> names;
  for (size_t i = 0; i < BusTable().size(); ++i) {
    const BusRow& row = BusTable()[i];
    EXPECT_EQ(static_cast<size_t>(row.bus), i) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " is in two rows";
    EXPECT_EQ(FindBusRow(row.name), &row);
    EXPECT_EQ(ParseBus(row.name), row.bus);
    EXPECT_EQ(ToString(row.bus), row.name);
  }
  EXPECT_EQ(FindBusRow("ide"), nullptr);
}

TEST(BusTableTest, EveryRowIsComplete) {
  for (const BusRow& row : BusTable()) {
    SCOPED_TRACE(row.name);
    EXPECT_NE(row.device_model, nullptr);
    EXPECT_NE(row.guest_modules[0], nullptr) << "the guest needs a driver";
    EXPECT_NE(std::string(row.guest_dev_prefix), "");
    if (row.virtqueue == VirtqueueOwner::None) {
      EXPECT_NE(std::string(row.no_virtqueue_reason), "");
    }
    if (row.virtqueue == VirtqueueOwner::Controller) {
      EXPECT_NE(row.controller_model, nullptr);
    }
    if (row.libvirt_bus) {
      EXPECT_NE(std::string(row.libvirt_dev_prefix), "");
    }
    if (row.queues == QueueModel::Fixed) {
      EXPECT_NE(std::string(row.fixed_queue), "");
    }
  }
}

TEST(BusTableTest, GuestModulesCoverEveryBusWithoutRepeats) {
  const std::vector<std::string> modules = BusGuestModules();
  EXPECT_THAT(modules, Contains("virtio_blk"));
  EXPECT_THAT(modules, Contains("nvme"));
  EXPECT_THAT(modules, Contains("sd_mod"));
  EXPECT_THAT(modules, Contains("ahci"));
  EXPECT_EQ(std::set<std::string>(modules.begin(), modules.end()).size(), modules.size());
}

TEST(BusTableTest, OnlyVirtioBusesHaveVirtqueues) {
  EXPECT_TRUE(HasVirtqueues(Bus::VirtioBlk));
  EXPECT_TRUE(HasVirtqueues(Bus::VirtioScsi));
  EXPECT_FALSE(HasVirtqueues(Bus::Nvme));
  EXPECT_FALSE(HasVirtqueues(Bus::Ahci));
  EXPECT_EQ(RowOf(Bus::Nvme).no_virtqueue_reason, std::string(kNvmeNoVirtqueue));
}

}  // namespace
}  // namespace storbed

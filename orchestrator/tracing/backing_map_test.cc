#include "tracing/backing_map.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <vector>

namespace storbed {
namespace {

BackingMap FileMap(std::vector<FileExtent> extents, uint64_t first_byte = 0) {
  BackingMap m;
  m.available = true;
  m.is_file = true;
  m.first_byte = first_byte;
  m.extents = std::move(extents);
  return m;
}

TEST(BackingMap, AFilesBytesAreItsExtentsSectorsOnTheDisk) {
  // 1 MiB at device byte 8 MiB, then 1 MiB at device byte 100 MiB; the partition at 1 MiB.
  const BackingMap m = FileMap({{0, 8 << 20, 1 << 20}, {1 << 20, 100 << 20, 1 << 20}}, 1 << 20);
  std::vector<SectorRange> r = BackingSectors(m, 4096, 4096);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].sector, ((9u << 20) + 4096) / 512);
  EXPECT_EQ(r[0].sectors, 8u);
  r = BackingSectors(m, (1 << 20) - 4096, 8192);  // across the two extents
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].sectors, 8u);
  EXPECT_EQ(r[1].sector, (101u << 20) / 512);
  EXPECT_TRUE(BackingSectors(m, 2 << 20, 4096).empty());  // past the extents
}

TEST(BackingMap, ADeviceMapsOneToOneFromItsStart) {
  BackingMap m;
  m.available = true;
  m.first_byte = 2048 * 512;
  const std::vector<SectorRange> r = BackingSectors(m, 4096, 65536);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].sector, 2048u + 8);
  EXPECT_EQ(r[0].sectors, 128u);
}

// A real file on the test machine's filesystem: its extents cover what was written, and
// tmpfs (no device) says so.
TEST(BackingMap, ARealFileIsMappedOrTheReasonGiven) {
  const std::string path = "/var/tmp/storbed-backing-map-" + std::to_string(::getpid());
  {
    std::ofstream out(path, std::ios::binary);
    const std::vector<char> block(1 << 20, 'x');
    for (int i = 0; i < 4; ++i) out.write(block.data(), long(block.size()));
  }
  const BackingMap m = MapBacking(path);
  if (m.available) {
    uint64_t covered = 0;
    for (const FileExtent& e : m.extents) covered += e.length;
    EXPECT_GE(covered, 4u << 20);
    EXPECT_EQ(BackingSectors(m, 0, 4 << 20).front().sector * 512 >= m.first_byte, true);
  } else {
    EXPECT_FALSE(m.reason.empty());
  }
  ::unlink(path.c_str());
  const BackingMap none = MapBacking("/dev/shm");
  EXPECT_FALSE(none.available);
  EXPECT_FALSE(none.reason.empty());
}

}  // namespace
}  // namespace storbed

#include <gtest/gtest.h>

#include "backend/backend.h"

namespace storbed {
namespace {

TEST(MachineDiedTest, AGuestKernelPanicIsNamedBeforeHowQemuEnded) {
  const std::string console =
      "[    2.100000] Run /init as init process\n"
      "[    2.300000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\r\n"
      "[    2.300100] Kernel Offset: disabled\n";
  const MachineDiedError e("virtio-blk", "exited with status 0", "", console);
  EXPECT_EQ(e.panic_line(), "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100");
  const std::string first_line = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
  EXPECT_EQ(first_line,
            "machine virtio-blk: the guest kernel panicked (Kernel panic - not syncing: Attempted "
            "to kill init! exitcode=0x00000100), then QEMU exited with status 0");
}

TEST(MachineDiedTest, WithoutAPanicOnlyHowQemuEndedIsSaid) {
  const MachineDiedError e("nvme", "was killed by signal 9 (SIGKILL)", "", "booting\n");
  EXPECT_EQ(e.panic_line(), "");
  EXPECT_EQ(std::string(e.what()).rfind("machine nvme: QEMU was killed by signal 9 (SIGKILL)\n", 0),
            0u)
      << e.what();
}

}  // namespace
}  // namespace storbed

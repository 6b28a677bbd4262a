#include "access_hints.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace {

TEST(AccessHintTest, EveryHintAppliesToAFile) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 1 << 16);
  UniqueFd fd(open(file.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  for (AccessHint h : {AccessHint::Sequential, AccessHint::Random, AccessHint::WillNeed,
                       AccessHint::None})
    EXPECT_NO_THROW(ApplyFadvise(fd.get(), 4096, 8192, h)) << ToString(h);
}

TEST(AccessHintTest, FailureNamesTheCallAndErrno) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  UniqueFd r(pipe_fds[0]), w(pipe_fds[1]);
  try {
    ApplyFadvise(r.get(), 0, 0, AccessHint::Random);
    FAIL() << "fadvise on a pipe should fail with ESPIPE";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("posix_fadvise(fd " + std::to_string(r.get())), std::string::npos) << what;
    EXPECT_NE(what.find("Illegal seek"), std::string::npos) << what;
  }
  EXPECT_THROW(ApplyFadvise(-1, 0, 0, AccessHint::WillNeed), std::runtime_error);
}

TEST(AccessHintTest, FlagsMatchTheKernelConstants) {
  EXPECT_EQ(FadviseFlag(AccessHint::None), POSIX_FADV_NORMAL);
  EXPECT_EQ(FadviseFlag(AccessHint::Random), POSIX_FADV_RANDOM);
}

}  // namespace
}  // namespace storbed

#include "backend/private_dir.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace storbed {
namespace {

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Regression: with umask 000, qmp.sock and agent.sock were open to every local user.
TEST(PrivateDirTest, TheRunDirIs0700AndASocketIs0600UnderUmask000) {
  const std::string dir = ::testing::TempDir() + "/private-dir-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  const mode_t old = umask(0);
  std::filesystem::create_directories(dir);  // as a rerun finds it: 0777
  MakePrivateDir(dir + "/machine-nvme");
  MakePrivateDir(dir);
  const std::string sock = dir + "/machine-nvme/qmp.sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  umask(old);
  EXPECT_EQ(ModeOf(sock), 0777u);  // what QEMU leaves under umask 000
  RestrictToOwner(sock);
  EXPECT_EQ(ModeOf(sock), 0600u);
  EXPECT_EQ(ModeOf(dir + "/machine-nvme"), 0700u);
  EXPECT_EQ(ModeOf(dir), 0700u);
  close(fd);
  std::filesystem::remove_all(dir);
}

TEST(PrivateDirTest, AMissingFileIsNamed) {
  try {
    RestrictToOwner("/nonexistent/agent.sock");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot make /nonexistent/agent.sock private (chmod 0600): No such file or "
                 "directory");
  }
}

}  // namespace
}  // namespace storbed

#include "backend/host_channel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <thread>

namespace storbed {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

TEST(HostChannelTest, ConnectRetriesUntilTheSocketAppears) {
  std::string path = ::testing::TempDir() + "/lc-" + std::to_string(getpid()) + ".sock";
  std::filesystem::remove(path);
  UniqueFd listener;
  std::thread create([&] {
    std::this_thread::sleep_for(200ms);
    UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strcpy(a.sun_path, path.c_str());
    ASSERT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ASSERT_EQ(listen(fd.get(), 1), 0);
    listener = std::move(fd);
  });
  UniqueFd fd = ConnectUnixSocket(path, Clock::now() + 5s, nullptr);
  create.join();
  EXPECT_TRUE(fd.valid());
  std::filesystem::remove(path);
}

TEST(HostChannelTest, ConnectGivesUpAtTheDeadline) {
  std::string path = ::testing::TempDir() + "/never-" + std::to_string(getpid()) + ".sock";
  try {
    ConnectUnixSocket(path, Clock::now() + 200ms, nullptr);
    FAIL();
  } catch (const ChannelError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr("No such file"));
  }
}

}  // namespace
}  // namespace storbed

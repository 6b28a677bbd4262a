#include "test_env.h"

#include <dirent.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "image/kernel_locator.h"

namespace storbed::testing {

std::string AgentPath() { return STORBED_AGENT_PATH; }
std::string CliPath() { return STORBED_CLI_PATH; }

std::string ScratchDir(const std::string& name) {
  const std::string dir = "/var/tmp/storbed-test-" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

GuestImage SharedGuestImage(std::string* why) {
  static std::once_flag once;
  static GuestImage image;
  static std::string error;
  std::call_once(once, [] {
    try {
      ImageRequest request;
      request.kernel = FindNewestHostKernel();
      request.agent_path = AgentPath();
      request.cache_dir = std::string(STORBED_BINARY_DIR) + "/test-image-cache";
      image = BuildGuestImage(request);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  *why = error;
  return image;
}

int CountQemuProcesses() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream comm(entry.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("qemu-system", 0) == 0) ++n;
  }
  return n;
}

}  // namespace storbed::testing

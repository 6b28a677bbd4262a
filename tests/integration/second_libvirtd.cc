#include "second_libvirtd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/child_process.h"
#include "test_env.h"
#include "test_paths.h"

namespace storbed::testing {
namespace {

const std::string kScript = TestSourceDir() + "/scripts/second-libvirtd.sh";

// Runs `argv` to completion; its output, and whether it exited with 0.
bool RunTool(const std::vector<std::string>& argv, const std::string& log, std::string* out) {
  ChildProcess p = ChildProcess::Start(argv, log);
  const bool done = p.WaitFor(std::chrono::seconds(60));
  *out = Slurp(log);
  std::filesystem::remove(log);
  return done && p.ExitedSuccessfully();
}

}  // namespace

int UnusedTcpPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // the kernel picks a free one
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    return 16599;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::unique_ptr<SecondLibvirtd> SecondLibvirtd::Start(std::string* why) {
  if (geteuid() != 0) {
    *why = "a second libvirtd needs root (mount namespace, /etc/libvirt overlay)";
    return nullptr;
  }
  if (access("/usr/sbin/libvirtd", X_OK) != 0) {
    *why = "no /usr/sbin/libvirtd on this machine";
    return nullptr;
  }
  char tmpl[] = "/var/tmp/storbed-second-XXXXXX";
  if (!mkdtemp(tmpl)) {
    *why = "cannot create /var/tmp/storbed-second-XXXXXX";
    return nullptr;
  }
  const std::string dir = tmpl;
  std::string out;
  const bool ok = RunTool({kScript, "start", dir, std::to_string(UnusedTcpPort())},
                          dir + ".start.log", &out);
  if (!ok) {
    *why = "scripts/second-libvirtd.sh start failed: " + out;
    RunTool({kScript, "stop", dir}, dir + ".stop.log", &out);
    return nullptr;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  const std::string uri = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  const int pid = std::atoi(Slurp(dir + "/libvirtd.pid").c_str());
  std::filesystem::create_directories(dir + "/pool");
  return std::unique_ptr<SecondLibvirtd>(new SecondLibvirtd(dir, uri, pid));
}

SecondLibvirtd::~SecondLibvirtd() {
  std::string out;
  RunTool({kScript, "stop", dir_}, dir_ + ".stop.log", &out);
}

std::vector<std::string> StorbedDomains(const std::string& uri) {
  std::string out;
  const std::string log = "/var/tmp/storbed-virsh-" + std::to_string(getpid()) + ".log";
  if (!RunTool({"virsh", "-c", uri, "list", "--all", "--name"}, log, &out))
    return {"<virsh failed: " + out + ">"};
  std::vector<std::string> names;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("storbed-", 0) == 0) names.push_back(line);
  return names;
}

}  // namespace storbed::testing

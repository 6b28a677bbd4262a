#include "pid1.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "errors.h"
#include "file_read.h"
#include "protocol.h"
#include "sysfs_read.h"
#include "unique_fd.h"

namespace storbed::agent {
namespace {

struct PseudoFs {
  const char* target;
  const char* type;
};

// devtmpfs last: it hides the initramfs /dev, but fds already open on its
// /dev/console stay valid.
constexpr PseudoFs kMounts[] = {{"/proc", "proc"}, {"/sys", "sysfs"}, {"/dev", "devtmpfs"}};

void MountPseudoFs(const PseudoFs& fs, std::vector<std::string>& problems) {
  if (::mkdir(fs.target, 0755) != 0 && errno != EEXIST)
    problems.push_back(std::string("cannot create ") + fs.target + ": " + ErrnoText(errno));
  // EBUSY: already mounted (e.g. the kernel's CONFIG_DEVTMPFS_MOUNT), which is fine.
  if (::mount(fs.type, fs.target, fs.type, MS_NOSUID | MS_NOEXEC, nullptr) != 0 && errno != EBUSY)
    problems.push_back(std::string("cannot mount ") + fs.type + " on " + fs.target + ": " +
                       ErrnoText(errno));
}

void RedirectToConsole(std::vector<std::string>& problems) {
  UniqueFd console(::open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!console) {
    problems.push_back("cannot open /dev/console: " + ErrnoText(errno));
    return;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  if (::dup2(console.get(), STDOUT_FILENO) < 0 || ::dup2(console.get(), STDERR_FILENO) < 0)
    problems.push_back("cannot redirect output to /dev/console: " + ErrnoText(errno));
}

}  // namespace

bool IsPid1() { return ::getpid() == 1; }

std::vector<std::string> ParseModuleList(const std::string& text) {
  std::vector<std::string> paths;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::string path = Trim(line);
    if (path.empty() || path[0] == '#') continue;
    paths.push_back(path);
  }
  return paths;
}

std::string ModuleName(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const std::string suffix = ".ko";
  if (name.size() > suffix.size() && name.ends_with(suffix))
    name.resize(name.size() - suffix.size());
  return name;
}

ModuleLoadResult FinitModule(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return {errno, "open"};
  if (::syscall(SYS_finit_module, fd.get(), "", 0) != 0) return {errno, "finit_module"};
  return {};
}

ModuleLoadReport LoadModules(const std::vector<std::string>& paths, const ModuleLoader& loader) {
  ModuleLoadReport report;
  for (const std::string& path : paths) {
    const ModuleLoadResult result = loader(path);
    // EEXIST: the module is already in the kernel, which is what we wanted.
    if (result.error == 0 || result.error == EEXIST) {
      const std::string name = ModuleName(path);
      if (std::find(report.loaded.begin(), report.loaded.end(), name) == report.loaded.end())
        report.loaded.push_back(name);
      continue;
    }
    std::string failure =
        "cannot load module " + path + ": " + result.syscall + ": " + ErrnoText(result.error);
    // The kernel answers an unresolved symbol with ENOENT, which reads like a missing file.
    if (result.syscall == "finit_module" && result.error == ENOENT)
      failure += " (unresolved symbols: a module it needs is missing or listed after it)";
    report.failures.push_back(std::move(failure));
  }
  return report;
}

Pid1Setup SetUpPid1() {
  Pid1Setup setup;
  for (const PseudoFs& fs : kMounts) MountPseudoFs(fs, setup.problems);
  RedirectToConsole(setup.problems);

  const std::optional<std::string> text = TryReadFile(kModuleListPath);
  if (!text) return setup;  // no list: everything the image needs is built in
  const auto start = std::chrono::steady_clock::now();
  ModuleLoadReport report = LoadModules(ParseModuleList(*text), FinitModule);
  setup.modules_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  setup.modules_loaded = std::move(report.loaded);
  for (std::string& failure : report.failures) setup.problems.push_back(std::move(failure));
  return setup;
}

void PowerOff() {
  ::sync();
  ::reboot(RB_POWER_OFF);
  // reboot() only returns on failure; PID 1 exiting would panic the kernel, so wait.
  std::fprintf(stderr, "storbed-agent: power off failed: %s\n", ErrnoText(errno).c_str());
  for (;;) ::pause();
}

void FatalPowerOff(const std::string& message, int port_fd) {
  std::fprintf(stderr, "storbed-agent: %s\n", message.c_str());
  if (port_fd >= 0) {
    // A guest port blocks writes while the host end is closed; never let that keep
    // the machine from powering off.
    const int flags = ::fcntl(port_fd, F_GETFL);
    if (flags >= 0) ::fcntl(port_fd, F_SETFL, flags | O_NONBLOCK);
    const std::string line = EncodeMessage(ErrorReply{"agent failed: " + message, "", ""}) + "\n";
    [[maybe_unused]] const ssize_t written = ::write(port_fd, line.data(), line.size());
  }
  PowerOff();
}

}  // namespace storbed::agent

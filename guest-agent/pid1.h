// The duties of the agent when it is /init (PID 1) of a generated initramfs: mount the
// pseudo filesystems, take over the console, load the kernel modules the image lists,
// and power the machine off at the end. PID 1 must never exit: the kernel panics.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace storbed::agent {

// The module list the image builder writes into the initramfs.
inline constexpr const char* kModuleListPath = "/etc/storbed/modules";

bool IsPid1();

// Absolute .ko paths from the module list text, in file order; blank lines and '#'
// comments are skipped.
std::vector<std::string> ParseModuleList(const std::string& text);

// "virtio_blk" for "/lib/modules/.../virtio_blk.ko".
std::string ModuleName(const std::string& path);

// How loading one module file went.
struct ModuleLoadResult {
  int error = 0;        // 0 or an errno value
  std::string syscall;  // the call that failed: "open" or "finit_module"
};
using ModuleLoader = std::function<ModuleLoadResult(const std::string& path)>;
// The real loader: open + finit_module.
ModuleLoadResult FinitModule(const std::string& path);

struct ModuleLoadReport {
  std::vector<std::string> loaded;    // module names, already-loaded ones included
  std::vector<std::string> failures;  // "cannot load module <path>: <syscall>: <errno text>"
};

// Loads every path in order and keeps going past failures: one missing module should
// cost one device, not the whole run.
ModuleLoadReport LoadModules(const std::vector<std::string>& paths, const ModuleLoader& loader);

struct Pid1Setup {
  std::vector<std::string> modules_loaded;
  double modules_s = 0;  // how long loading them took
  std::vector<std::string> problems;  // non-fatal, for the console log
};

// Mounts /proc, /sys and /dev, points stdout and stderr at /dev/console and loads the
// modules of kModuleListPath. Never throws; what went wrong is in `problems`.
Pid1Setup SetUpPid1();

// sync(), then power off. Never returns.
[[noreturn]] void PowerOff();

// For a fatal error as PID 1: prints "storbed-agent: <message>" on the console, sends it
// as an `error` message on port_fd when that is open (>= 0), then powers off.
[[noreturn]] void FatalPowerOff(const std::string& message, int port_fd = -1);

}  // namespace storbed::agent

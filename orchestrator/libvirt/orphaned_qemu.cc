#include "libvirt/orphaned_qemu.h"

#include <signal.h>

#include <thread>

#include "libvirt/qemu_process.h"

namespace storbed {
namespace {

bool StillThatQemu(int pid, const std::string& domain_name, const std::string& proc_root) {
  for (const std::string& arg : ReadCmdline(proc_root, pid)) {
    if (arg == "guest=" + domain_name || arg.rfind("guest=" + domain_name + ",", 0) == 0)
      return true;
  }
  return false;  // gone, a zombie (no cmdline) or another process on a reused pid
}

bool WaitGone(int pid, const std::string& domain_name, std::chrono::milliseconds timeout,
              const std::string& proc_root) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (StillThatQemu(pid, domain_name, proc_root)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace

bool StopOrphanedDomainQemu(int pid, const std::string& domain_name,
                            std::chrono::milliseconds grace, const std::string& proc_root) {
  if (pid <= 0 || !StillThatQemu(pid, domain_name, proc_root)) return true;
  ::kill(pid, SIGTERM);
  ::kill(pid, SIGCONT);
  if (WaitGone(pid, domain_name, grace, proc_root)) return true;
  ::kill(pid, SIGKILL);
  return WaitGone(pid, domain_name, std::chrono::seconds(5), proc_root);
}

}  // namespace storbed

#include "backend/accel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "file_read.h"

namespace storbed {

std::string RealAccelHost::CpuInfo() { return ReadFileOrEmpty("/proc/cpuinfo"); }

bool RealAccelHost::CanOpenKvm(std::string* why) {
  int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *why = std::string("cannot open /dev/kvm read-write: ") + std::strerror(errno);
    return false;
  }
  ::close(fd);
  return true;
}

bool RealAccelHost::ProbeKvmGuest(std::string* why) {
  if (!probe_) return true;
  return probe_(why);
}

bool CpuInfoHasVirtualisation(const std::string& cpuinfo) {
  std::istringstream lines(cpuinfo);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') == std::string::npos
                                             ? line.size()
                                             : line.find(':') + 1));
    std::string w;
    while (words >> w) {
      if (w == "vmx" || w == "svm") return true;
    }
  }
  return false;
}

AccelDecision DetectAccel(AccelHost& host, std::optional<Accel> forced) {
  if (forced == Accel::Tcg) return {Accel::Tcg, "TCG requested; KVM not checked"};
  std::string failure;
  if (!CpuInfoHasVirtualisation(host.CpuInfo())) {
    // Nested guests without nested virtualisation often still have /dev/kvm, but every
    // KVM_CREATE_VM or vCPU run fails: the flag is the reliable first signal.
    failure = "/proc/cpuinfo has no vmx or svm flag: hardware virtualisation absent";
  } else if (std::string why; !host.CanOpenKvm(&why)) {
    failure = why;
  } else if (!host.ProbeKvmGuest(&why)) {
    failure = "a guest did not boot under KVM: " + why;
  }
  if (failure.empty()) {
    return {Accel::Kvm, forced ? "KVM requested and usable"
                               : "vmx/svm present, /dev/kvm opens and a guest boots: using KVM"};
  }
  if (forced == Accel::Kvm) throw AccelError("KVM was requested but is not usable: " + failure);
  return {Accel::Tcg, failure + "; using TCG"};
}

}  // namespace storbed

// Chooses KVM or TCG. KVM only when the CPU advertises vmx/svm, /dev/kvm opens read-write
// and a real guest boots under it; otherwise TCG, with the reason recorded in the result.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "backend/machine_spec.h"
#include "error.h"

namespace storbed {

struct AccelDecision {
  Accel accel = Accel::Tcg;
  std::string reason;  // one sentence for the result and the terminal
};

// The host facts DetectAccel looks at; faked in tests.
class AccelHost {
 public:
  virtual ~AccelHost() = default;
  // The text of /proc/cpuinfo.
  virtual std::string CpuInfo() = 0;
  // Whether /dev/kvm opens O_RDWR; on false *why says what failed (errno text).
  virtual bool CanOpenKvm(std::string* why) = 0;
  // Whether a guest boots with accel=kvm and answers; on false *why says what failed.
  virtual bool ProbeKvmGuest(std::string* why) = 0;
};

// Boots a guest under KVM and waits for its agent; supplied by whoever has an image.
using KvmGuestProbe = std::function<bool(std::string* why)>;

// The real host: /proc/cpuinfo, /dev/kvm and the supplied probe. A null probe means
// "skip the guest check" and ProbeKvmGuest then answers true with nothing in *why.
class RealAccelHost : public AccelHost {
 public:
  explicit RealAccelHost(KvmGuestProbe probe = nullptr) : probe_(std::move(probe)) {}
  std::string CpuInfo() override;
  bool CanOpenKvm(std::string* why) override;
  bool ProbeKvmGuest(std::string* why) override;

 private:
  KvmGuestProbe probe_;
};

// Asked for KVM explicitly, but KVM is not usable here. what() gives the reason.
class AccelError : public Error {
 public:
  explicit AccelError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// True if a "flags" line of cpuinfo contains the word vmx or svm.
bool CpuInfoHasVirtualisation(const std::string& cpuinfo);

// forced = Tcg: tcg without checks. forced = Kvm: kvm or AccelError. nullopt: the best
// available. Checks run in order (flags, /dev/kvm, probe) and stop at the first failure.
AccelDecision DetectAccel(AccelHost& host, std::optional<Accel> forced);

}  // namespace storbed

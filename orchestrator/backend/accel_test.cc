#include "backend/accel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace storbed {
namespace {

using ::testing::HasSubstr;

constexpr const char* kIntelCpu =
    "processor\t: 0\nmodel name\t: Intel\nflags\t\t: fpu vme de pse vmx ept\n\n";
constexpr const char* kNoVirtCpu =
    "processor\t: 0\nflags\t\t: fpu vme de pse hypervisor\nvmx flags\t: none\n\n";

// Records which checks ran and answers as configured.
class FakeAccelHost : public AccelHost {
 public:
  std::string cpuinfo = kIntelCpu;
  bool kvm_opens = true;
  bool probe_ok = true;
  int kvm_opened = 0, probed = 0;

  std::string CpuInfo() override { return cpuinfo; }
  bool CanOpenKvm(std::string* why) override {
    ++kvm_opened;
    if (!kvm_opens) *why = "cannot open /dev/kvm read-write: Permission denied";
    return kvm_opens;
  }
  bool ProbeKvmGuest(std::string* why) override {
    ++probed;
    if (!probe_ok) *why = "no hello within 20 s";
    return probe_ok;
  }
};

TEST(AccelTest, FlagsParsing) {
  EXPECT_TRUE(CpuInfoHasVirtualisation(kIntelCpu));
  EXPECT_TRUE(CpuInfoHasVirtualisation("flags : sse svm\n"));
  EXPECT_FALSE(CpuInfoHasVirtualisation(kNoVirtCpu));  // "vmx flags" line is not "vmx"
  EXPECT_FALSE(CpuInfoHasVirtualisation("flags : vmxx svm2\n"));
  EXPECT_FALSE(CpuInfoHasVirtualisation(""));
}

TEST(AccelTest, AllChecksPassGivesKvm) {
  FakeAccelHost host;
  AccelDecision d = DetectAccel(host, std::nullopt);
  EXPECT_EQ(d.accel, Accel::Kvm);
  EXPECT_EQ(host.probed, 1);
}

TEST(AccelTest, NoFlagGivesTcgWithoutFurtherChecks) {
  FakeAccelHost host;
  host.cpuinfo = kNoVirtCpu;
  AccelDecision d = DetectAccel(host, std::nullopt);
  EXPECT_EQ(d.accel, Accel::Tcg);
  EXPECT_EQ(d.reason,
            "/proc/cpuinfo has no vmx or svm flag: hardware virtualisation absent; using TCG");
  EXPECT_EQ(host.kvm_opened, 0);
  EXPECT_EQ(host.probed, 0);
}

TEST(AccelTest, DevKvmUnopenableGivesTcg) {
  FakeAccelHost host;
  host.kvm_opens = false;
  AccelDecision d = DetectAccel(host, std::nullopt);
  EXPECT_EQ(d.accel, Accel::Tcg);
  EXPECT_THAT(d.reason, HasSubstr("Permission denied; using TCG"));
  EXPECT_EQ(host.probed, 0);
}

TEST(AccelTest, ProbeFailureGivesTcg) {
  FakeAccelHost host;
  host.probe_ok = false;
  AccelDecision d = DetectAccel(host, std::nullopt);
  EXPECT_EQ(d.accel, Accel::Tcg);
  EXPECT_THAT(d.reason, HasSubstr("a guest did not boot under KVM: no hello within 20 s"));
}

TEST(AccelTest, ForcedTcgChecksNothing) {
  FakeAccelHost host;
  AccelDecision d = DetectAccel(host, Accel::Tcg);
  EXPECT_EQ(d.accel, Accel::Tcg);
  EXPECT_EQ(host.kvm_opened + host.probed, 0);
}

TEST(AccelTest, ForcedKvmThatFailsIsAnError) {
  FakeAccelHost host;
  host.cpuinfo = kNoVirtCpu;
  try {
    DetectAccel(host, Accel::Kvm);
    FAIL() << "expected AccelError";
  } catch (const AccelError& e) {
    EXPECT_THAT(e.what(), HasSubstr("KVM was requested but is not usable"));
    EXPECT_THAT(e.what(), HasSubstr("no vmx or svm flag"));
  }
  FakeAccelHost ok;
  EXPECT_EQ(DetectAccel(ok, Accel::Kvm).accel, Accel::Kvm);
}

// The real host. This testbed's machine has /dev/kvm but no vmx/svm: TCG, never probed.
TEST(AccelTest, RealHost) {
  bool probed = false;
  RealAccelHost host([&](std::string*) {
    probed = true;
    return true;
  });
  AccelDecision d = DetectAccel(host, std::nullopt);
  if (CpuInfoHasVirtualisation(host.CpuInfo())) {
    GTEST_SKIP() << "this host has vmx/svm; decision was " << ToString(d.accel) << ": "
                 << d.reason;
  }
  EXPECT_EQ(d.accel, Accel::Tcg);
  EXPECT_EQ(d.reason,
            "/proc/cpuinfo has no vmx or svm flag: hardware virtualisation absent; using TCG");
  EXPECT_FALSE(probed);
}

}  // namespace
}  // namespace storbed

#include "execute/input_checks.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "passthrough/fake_sysfs_for_test.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

// Issue 15: each of these passed --dry-run and failed only after the real run's setup.
class InputChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/input-checks-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/work");
    options_.work_dir = dir_ + "/work";
    options_.agent_path = dir_ + "/agent";
    WriteStaticElf(options_.agent_path);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The smallest file the agent check accepts: an x86-64 ELF executable, no PT_INTERP.
  static void WriteStaticElf(const std::string& path) {
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&eh), sizeof eh);
    out.write(reinterpret_cast<const char*>(&ph), sizeof ph);
  }

  // A bzImage header naming `release`, and DIR/lib/modules/<modules_release>/modules.dep.
  std::string WriteKernel(const std::string& release) {
    std::string image(0x400, '\0');
    image[0x1FE] = char(0x55);
    image[0x1FF] = char(0xAA);
    std::memcpy(&image[0x202], "HdrS", 4);
    image[0x20E] = 0x00;  // the version string at 0x100 + 0x200
    image[0x20F] = 0x01;
    const std::string version = release + " (test@example) #1";
    std::memcpy(&image[0x300], version.data(), version.size());
    const std::string path = dir_ + "/vmlinuz-" + release;
    std::ofstream(path, std::ios::binary) << image;
    return path;
  }
  std::string WriteModules(const std::string& release) {
    const std::string mods = dir_ + "/lib/modules/" + release;
    fs::create_directories(mods);
    std::ofstream(mods + "/modules.dep") << "";
    std::ofstream(mods + "/modules.builtin") << "";
    return mods;
  }

  // The message CheckRunInputs throws for `scenario`, "(accepted)" when none.
  std::string Check(const std::string& scenario) {
    try {
      CheckRunInputs(ParseScenario(scenario, "t.json"), options_);
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "(accepted)";
  }
  std::string BareMetalOn(const std::string& backing, const std::string& extra = "") {
    return Check(R"({"name": "t", "targets": ["bare-metal"], "disk": {"backing": ")" + backing +
                 "\"" + extra + R"(}, "jobs": [{"name": "a"}]})");
  }

  std::string dir_;
  RunOptions options_;
};

TEST_F(InputChecksTest, AMissingBackingIsRefused) {
  EXPECT_EQ(BareMetalOn("/nonexistent/disk.raw"),
            "t.json: disk.backing: /nonexistent/disk.raw does not exist");
}

TEST_F(InputChecksTest, ADirectoryAsBackingIsRefused) {
  EXPECT_EQ(BareMetalOn(dir_),
            "t.json: disk.backing: " + dir_ +
                " is a directory; a backing must be a regular file or a block device");
}

TEST_F(InputChecksTest, DevZeroAsBackingIsRefused) {
  EXPECT_EQ(BareMetalOn("/dev/zero"),
            "t.json: disk.backing: /dev/zero is a character device; a backing must be a "
            "regular file or a block device");
}

TEST_F(InputChecksTest, ProcSelfMemAsBackingIsRefused) {
  EXPECT_EQ(BareMetalOn("/proc/self/mem"),
            "t.json: disk.backing: /proc/self/mem is on /proc or /sys, not storage");
}

TEST_F(InputChecksTest, AFifoAsBackingIsRefused) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(BareMetalOn(fifo), "t.json: disk.backing: " + fifo +
                                   " is a FIFO; a backing must be a regular file or a block device");
}

TEST_F(InputChecksTest, AnEmptyFileAsBackingIsRefused) {
  std::ofstream(dir_ + "/empty.raw");
  EXPECT_EQ(BareMetalOn(dir_ + "/empty.raw"), "t.json: disk.backing: " + dir_ + "/empty.raw is empty");
}

TEST_F(InputChecksTest, AGoodBackingFileIsAccepted) {
  std::ofstream(dir_ + "/disk.raw") << std::string(1 << 20, 'x');
  EXPECT_EQ(BareMetalOn(dir_ + "/disk.raw"), "(accepted)");
}

// Regression: `storbed image build --agent /etc/passwd` exited 0 and the guest panicked.
TEST_F(InputChecksTest, AnAgentThatIsNoStaticX8664ElfIsRefused) {
  std::ofstream(dir_ + "/disk.raw") << std::string(1 << 20, 'x');
  options_.agent_path = "/etc/passwd";
  EXPECT_EQ(BareMetalOn(dir_ + "/disk.raw"), "--agent /etc/passwd: is not an ELF executable");
  options_.agent_path = "/bin/true";  // dynamically linked on Debian
  EXPECT_EQ(BareMetalOn(dir_ + "/disk.raw"),
            "--agent /bin/true: is dynamically linked; the guest has no dynamic loader (build "
            "it static, as the guest-agent target does)");
  options_.agent_path = dir_ + "/no-agent";
  EXPECT_EQ(BareMetalOn(dir_ + "/disk.raw"),
            "--agent " + dir_ + "/no-agent: cannot be read: No such file or directory");
}

TEST_F(InputChecksTest, AKernelThatIsNoBzImageIsRefused) {
  EXPECT_EQ(Check(R"({"name": "t", "targets": ["nvme"], "machine": {"kernel": "/etc/passwd",
                      "modules_dir": "/"}, "disk": {"driver": "null-co"}, "jobs": [{"name": "a"}]})"),
            "t.json: machine.kernel: /etc/passwd is not a bzImage (no x86 boot header: 0xAA55 "
            "at 0x1FE and \"HdrS\" at 0x202)");
  EXPECT_EQ(Check(R"({"name": "t", "targets": ["nvme"], "machine": {"kernel": "/nonexistent/vmlinuz-1"},
                      "disk": {"driver": "null-co"}, "jobs": [{"name": "a"}]})"),
            "t.json: machine.kernel: /nonexistent/vmlinuz-1 cannot be read: No such file or "
            "directory");
}

TEST_F(InputChecksTest, AMissingModulesDirIsRefused) {
  const std::string kernel = WriteKernel("6.1.0-test");
  EXPECT_EQ(Check(R"({"name": "t", "targets": ["nvme"], "machine": {"kernel": ")" + kernel +
                  R"(", "modules_dir": "/nonexistent/modules"}, "disk": {"driver": "null-co"},
                      "jobs": [{"name": "a"}]})"),
            "t.json: machine.modules_dir: /nonexistent/modules does not exist");
}

TEST_F(InputChecksTest, ModulesOfAnotherReleaseAreRefusedAndTheirOwnAccepted) {
  const std::string kernel = WriteKernel("6.1.0-test");
  const std::string other = WriteModules("6.1.0-other");
  EXPECT_EQ(Check(R"({"name": "t", "targets": ["nvme"], "machine": {"kernel": ")" + kernel +
                  R"(", "modules_dir": ")" + other + R"("}, "disk": {"driver": "null-co"},
                      "jobs": [{"name": "a"}]})"),
            "t.json: machine.modules_dir: " + other +
                " holds the modules of release 6.1.0-other, but " + kernel +
                " is release 6.1.0-test");
  const std::string own = WriteModules("6.1.0-test");
  EXPECT_EQ(Check(R"({"name": "t", "targets": ["nvme"], "machine": {"kernel": ")" + kernel +
                  R"(", "modules_dir": ")" + own + R"("}, "disk": {"driver": "null-co"},
                      "jobs": [{"name": "a"}]})"),
            "(accepted)");
}

// Regression: disk.size "16t" filled the root filesystem until ENOSPC.
TEST_F(InputChecksTest, ABackingLargerThanTheFreeSpaceIsRefusedBeforeItIsMade) {
  const std::string message = Check(
      R"({"name": "t", "targets": ["bare-metal"], "disk": {"size": "16t"}, "jobs": [{"name": "a"}]})");
  const std::string prefix = "t.json: disk.size: the backings need 16t in " + dir_ +
                             "/work (plus a margin of 512m), which has ";
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  EXPECT_EQ(message.substr(message.size() - 5), " free") << message;
  EXPECT_TRUE(fs::is_empty(dir_ + "/work"));
}

TEST_F(InputChecksTest, AnImageCacheThatCannotBeADirectoryIsNamed) {
  std::ofstream(dir_ + "/file") << "x";
  EXPECT_EQ(DirectoryPathProblem(dir_), "");
  EXPECT_EQ(DirectoryPathProblem(dir_ + "/new/deeper"), "");  // made when needed
  EXPECT_EQ(DirectoryPathProblem("relative-cache"), "");
  EXPECT_EQ(DirectoryPathProblem("/dev/null"), "is a character device, not a directory");
  EXPECT_EQ(DirectoryPathProblem(dir_ + "/file/cache/x"),
            dir_ + "/file is a regular file, so no directory can be made there");
}

TEST_F(InputChecksTest, AMissingWorkDirIsRefused) {
  options_.work_dir = dir_ + "/no-work";
  EXPECT_EQ(Check(R"({"name": "t", "targets": ["bare-metal"], "jobs": [{"name": "a"}]})"),
            "--work-dir " + dir_ + "/no-work: does not exist");
}

// disk.passthrough: the refusals of pci_safety.h reach --dry-run and the real run as bad
// input naming the file and the field (each refusal's own text: pci_safety_test.cc).
class PassthroughInputTest : public InputChecksTest {
 protected:
  void SetUp() override {
    InputChecksTest::SetUp();
    fake_.AddNvme("0000:03:00.0", 0, 1, "7");
    options_.passthrough_sources = fake_.Sources();
  }
  std::string CheckPassthrough() {
    return Check(R"({"name": "t", "targets": ["bare-metal"],
                     "disk": {"passthrough": "0000:03:00.0"}, "jobs": [{"name": "a"}]})");
  }
  passthrough_test::FakeSysfs fake_;
};

TEST_F(PassthroughInputTest, ADeviceNotOnTheAllowListIsBadInput) {
  EXPECT_EQ(CheckPassthrough(),
            "t.json: disk.passthrough: PCI device 0000:03:00.0 is not on the allow-list; pass "
            "--allow-pci 0000:03:00.0 to storbed run if handing it to a guest is meant");
}

TEST_F(PassthroughInputTest, AMountedNamespaceIsBadInput) {
  options_.allow_pci = {"0000:03:00.0"};
  fake_.Mount("259:1", "/data");
  EXPECT_EQ(CheckPassthrough(),
            "t.json: disk.passthrough: PCI device 0000:03:00.0: namespace nvme0n1 is mounted at "
            "/data; unmount it first");
}

TEST_F(PassthroughInputTest, AnAllowedCleanDeviceIsAccepted) {
  options_.allow_pci = {"0000:03:00.0"};
  EXPECT_EQ(CheckPassthrough(), "(accepted)");
}

TEST_F(PassthroughInputTest, ALocalLibvirtIsAccepted) {
  options_.allow_pci = {"0000:03:00.0"};
  options_.backend = "libvirt";
  EXPECT_EQ(CheckPassthrough(), "(accepted)");
}

TEST_F(PassthroughInputTest, ARemoteLibvirtHostIsRefused) {
  options_.allow_pci = {"0000:03:00.0"};
  options_.backend = "libvirt";
  options_.connect_uri = "qemu+ssh://root@lab1/system";
  EXPECT_EQ(CheckPassthrough(),
            "t.json: disk.passthrough: PCI device 0000:03:00.0: libvirt host lab1 "
            "(qemu+ssh://root@lab1/system) is another machine; storbed hands over only a device "
            "of this one: run with a local URI or --backend qemu");
}

}  // namespace
}  // namespace storbed

namespace storbed {
namespace {

TEST(TraceHostProblemTest, NamesWhatIsMissingForTracing) {
  const std::string with = "nodev\tsysfs\nnodev\ttracefs\n\text4\n";
  const std::string without = "nodev\tsysfs\nnodev\tdebugfs\n\text4\n";
  EXPECT_EQ(TraceHostProblem(true, with), "");
  EXPECT_NE(TraceHostProblem(false, with).find("needs root"), std::string::npos);
  EXPECT_NE(TraceHostProblem(true, without).find("no tracefs"), std::string::npos);
  EXPECT_NE(TraceHostProblem(true, "nodev\tnottracefs\n").find("no tracefs"), std::string::npos);
}

// Issue 38: a --history that could not take the records passed the dry run, and the run
// failed after its last job.
TEST_F(InputChecksTest, AHistoryFileIsCheckedBeforeTheRun) {
  EXPECT_EQ(HistoryFileProblem(dir_ + "/h.db"), "");
  EXPECT_EQ(HistoryFileProblem(dir_), "is a directory, not a history database file");
  EXPECT_EQ(HistoryFileProblem(dir_ + "/none/h.db"),
            "its directory " + dir_ + "/none does not exist");
  EXPECT_EQ(HistoryFileProblem("/dev/null"), "is a character device, not a history database file");
}

// Issue 38: as a user, the dry run said valid and the run failed attaching the loop device.
TEST(BareMetalHostTest, BareMetalNeedsRoot) {
  EXPECT_EQ(BareMetalHostProblem(true), "");
  EXPECT_EQ(BareMetalHostProblem(false),
            "\"bare-metal\" needs root on this host: storbed attaches the backing to a loop "
            "device, drops the page cache and sets the device's queue tunables; run as root or "
            "drop \"bare-metal\" from targets");
}

}  // namespace
}  // namespace storbed

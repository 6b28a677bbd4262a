// `storbed cleanup` end to end: after a `storbed run` is SIGKILLed it removes the work
// dir, a loop device and a stray QEMU over it, and the machine's sockets; and it removes a
// libvirt domain whose owner is dead while leaving a live run's and a foreign domain alone.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "backend/child_process.h"
#include "execute/temp_dir.h"
#include "libvirt/virt_handles.h"
#include "owner_marker.h"
#include "test_env.h"

namespace storbed {
namespace cleanup_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

using testing::CliRun;
using testing::Slurp;

CliRun RunCli(const std::vector<std::string>& args, const std::string& log) {
  return testing::RunCli(args, log, nullptr, std::chrono::minutes(2));
}

// Output of a shell command (stdout), trailing newline dropped.
std::string Shell(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// QemuPidsMentioning without zombies: a killed QEMU waits for pid 1 to reap it.
std::vector<int> LiveQemuPidsMentioning(const std::string& needle) {
  std::vector<int> live;
  for (int pid : testing::QemuPidsMentioning(needle)) {
    const std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z')
      live.push_back(pid);
  }
  return live;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Starts `storbed run` of a 5-minute random read on one virtio-blk guest (scenario `name`,
// results in <dir>/out, work dirs in <dir>/work, then `extra` arguments) and returns once
// the job is under way, for the test to kill it.
ChildProcess StartLongRun(const std::string& dir, const std::string& name,
                          const std::vector<std::string>& extra) {
  fs::create_directories(dir + "/work");
  std::ofstream(dir + "/scenario.json") << R"({
    "name": ")" + name + R"(", "targets": ["virtio-blk"], "machine": {"memory": "512m"},
    "disk": {"size": "16m"},
    "jobs": [{"name": "long", "pattern": "random", "bs": "4k", "runtime": 300}]})";
  std::vector<std::string> argv{testing::CliPath(), "run", dir + "/scenario.json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--out", dir + "/out", "--work-dir", dir + "/work", "--image-cache",
                           testing::ImageCacheDir()});
  ChildProcess run = ChildProcess::Start(argv, dir + "/run.log");
  EXPECT_TRUE(testing::WaitForLogLine(dir + "/run.log", "001-virtio-blk-long on"))
      << Slurp(dir + "/run.log");
  return run;
}

TEST(CleanupTest, AfterSigkillOfStorbedRemovesWorkDirLoopQemuAndSockets) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (!fs::exists("/dev/loop-control")) GTEST_SKIP() << "no /dev/loop-control";
  const std::string dir = testing::ScratchDir("cleanup-kill");
  const std::string out = dir + "/out", work = dir + "/work";
  ChildProcess run = StartLongRun(dir, "cleanup", {});
  ASSERT_EQ(LiveQemuPidsMentioning(out).size(), 1u);

  // What a killed run can leave beyond its work dir: a loop device over its backing
  // (attached without autoclear, as a tool of the user's might) and a QEMU that outlived
  // storbed (reparented, its agent socket inside the work dir).
  fs::path run_work;
  for (const auto& e : fs::directory_iterator(work)) run_work = e.path();
  ASSERT_TRUE(fs::exists(run_work / "owner")) << run_work;
  const std::string loop = Shell("losetup --find --show " + (run_work / "backing.raw").string());
  ASSERT_EQ(loop.rfind("/dev/loop", 0), 0u) << loop;
  const std::string stray_socket = (run_work / "stray-agent.sock").string();
  Shell(
      "sh -c 'qemu-system-x86_64 -name storbed-stray,debug-threads=on -machine q35 -accel tcg "
      "-m 64 -S -nodefaults -display none -device virtio-serial-pci,id=vser0 "
      "-chardev socket,id=agent,path=" +
      stray_socket +
      ",server=on,wait=off "
      "-device virtserialport,bus=vser0.0,chardev=agent,name=org.storbed.agent.0 "
      ">/dev/null 2>&1 &'");
  for (int i = 0; i < 50 && LiveQemuPidsMentioning(stray_socket).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto stray = LiveQemuPidsMentioning(stray_socket);
  ASSERT_EQ(stray.size(), 1u);

  // A live run's work dir (this test process owns it) stays.
  TempDir live(work, "storbed-work-");

  kill(run.Pid(), SIGKILL);
  ASSERT_TRUE(run.WaitFor(std::chrono::seconds(30)));
  ASSERT_TRUE(fs::exists(run_work));

  const std::vector<std::string> args{"cleanup", "--no-libvirt", "--work-dir",
                                      work,      "--results",    out};
  std::vector<std::string> dry_args = args;
  dry_args.push_back("--dry-run");
  const CliRun dry = RunCli(dry_args, dir + "/dry.log");
  EXPECT_EQ(dry.exit, "exited with status 0") << dry.log;
  EXPECT_TRUE(Contains(dry.log, "would remove work dir " + run_work.string())) << dry.log;
  EXPECT_TRUE(fs::exists(run_work));
  EXPECT_EQ(LiveQemuPidsMentioning(stray_socket).size(), 1u);

  const CliRun clean = RunCli(args, dir + "/cleanup.log");
  EXPECT_EQ(clean.exit, "exited with status 0") << clean.log;
  const std::string owner_gone = "(owner pid " + std::to_string(run.Pid()) + " gone)";
  EXPECT_TRUE(Contains(clean.log, "removed work dir " + run_work.string() + " " + owner_gone))
      << clean.log;
  EXPECT_TRUE(Contains(clean.log, "removed QEMU pid " + std::to_string(stray[0]) +
                                      " (storbed-stray) (uses " + run_work.string()))
      << clean.log;
  EXPECT_TRUE(Contains(clean.log, "removed loop device " + loop + " over ")) << clean.log;
  EXPECT_TRUE(Contains(clean.log, "removed socket " + out + "/machine-virtio-blk/qmp.sock"))
      << clean.log;
  EXPECT_FALSE(Contains(clean.log, live.path())) << clean.log;
  std::cout << clean.log;

  EXPECT_TRUE(LiveQemuPidsMentioning(dir).empty());
  EXPECT_FALSE(fs::exists(run_work));
  EXPECT_TRUE(fs::exists(live.path()));
  EXPECT_FALSE(
      fs::exists("/sys/block/" + fs::path(loop).filename().string() + "/loop/backing_file"));
  EXPECT_FALSE(fs::exists(out + "/machine-virtio-blk/qmp.sock"));
  EXPECT_FALSE(fs::exists(out + "/machine-virtio-blk/agent.sock"));
  EXPECT_TRUE(fs::exists(out + "/manifest.json"));  // results stay
}

// A domain that removes itself at the end of the test, whatever happened.
struct ScopedDomain {
  virConnectPtr conn;
  std::string name;
  ~ScopedDomain() {
    if (virDomainPtr d = virDomainLookupByName(conn, name.c_str())) {
      virDomainDestroy(d);
      virDomainFree(d);
    }
  }
};

std::string TinyDomainXml(const std::string& name, const std::string& metadata) {
  return "<domain type='qemu'><name>" + name +
         "</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>"
         "<os><type arch='x86_64' machine='q35'>hvm</type></os>" +
         (metadata.empty() ? "" : "<metadata>" + metadata + "</metadata>") + "<devices/></domain>";
}

std::string RunMetadata(const std::string& session, int pid, const std::string& started) {
  return "<storbed:run xmlns:storbed='https://storbed.dev/xmlns/run/1' session='" + session +
         "' pid='" + std::to_string(pid) + "' host='" + ThisHostName() + "' started='" + started +
         "'/>";
}

// A pid that no process has: a child that already exited and was reaped.
int DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST(CleanupTest, RemovesADeadOwnersDomainAndLeavesALiveOneAndForeignOnes) {
  const std::string uri = "qemu:///system";
  std::optional<LibvirtConnection> conn;
  try {
    conn.emplace(LibvirtConnection::Open(uri));
  } catch (const LibvirtError& e) {
    GTEST_SKIP() << e.what();
  }
  const std::string dir = testing::ScratchDir("cleanup-libvirt");
  const int dead = DeadPid();
  const std::string dead_session = "20240101T000000-" + std::to_string(dead);
  const std::string me = std::to_string(getpid());
  const ScopedDomain stale{conn->get(), "storbed-" + dead_session + "-cleanup-test"};
  const ScopedDomain live{conn->get(), "storbed-29990101T000000-" + me + "-cleanup-test"};
  const ScopedDomain foreign{conn->get(), "cleanup-test-keep-" + me};
  const ScopedDomain unowned{conn->get(), "storbed-unowned-cleanup-test-" + me};
  const std::pair<const ScopedDomain*, std::string> domains[] = {
      {&stale, RunMetadata(dead_session, dead, "2024-01-01T00:00:00Z")},
      {&live, RunMetadata("29990101T000000-" + me, getpid(), "2999-01-01T00:00:00Z")},
      {&foreign, RunMetadata(dead_session, dead, "2024-01-01T00:00:00Z")},
      {&unowned, ""}};
  for (const auto& [domain, metadata] : domains) {
    // Transient and without AUTODESTROY: it outlives this connection, as a killed run's would.
    virDomainPtr d =
        virDomainCreateXML(conn->get(), TinyDomainXml(domain->name, metadata).c_str(), 0);
    ASSERT_NE(d, nullptr) << domain->name << ": " << virGetLastErrorMessage();
    virDomainFree(d);
  }
  // A volume of the dead session, when this host has the storbed pool.
  std::string volume;
  if (virStoragePoolPtr pool = virStoragePoolLookupByName(conn->get(), "storbed")) {
    volume = "storbed-" + dead_session + "-cleanup-test-d0.img";
    const std::string xml = "<volume><name>" + volume +
                            "</name><capacity unit='KiB'>64</capacity>"
                            "<target><format type='raw'/></target></volume>";
    virStorageVolPtr vol = virStorageVolCreateXML(pool, xml.c_str(), 0);
    if (vol)
      virStorageVolFree(vol);
    else
      volume.clear();
    virStoragePoolFree(pool);
  }

  const CliRun clean =
      RunCli({"cleanup", "--connect", uri, "--work-dir", dir}, dir + "/cleanup.log");
  EXPECT_EQ(clean.exit, "exited with status 0") << clean.log;
  std::cout << clean.log;
  EXPECT_TRUE(Contains(clean.log, "removed domain " + stale.name + " on " + uri + " (owner pid " +
                                      std::to_string(dead) + " gone)"))
      << clean.log;
  EXPECT_TRUE(Contains(clean.log, "left alone domain " + unowned.name)) << clean.log;
  EXPECT_FALSE(Contains(clean.log, live.name)) << clean.log;
  EXPECT_FALSE(Contains(clean.log, foreign.name)) << clean.log;
  if (!volume.empty()) {
    EXPECT_TRUE(Contains(clean.log, "removed volume " + volume)) << clean.log;
  }

  auto exists = [&](const std::string& name) {
    virDomainPtr d = virDomainLookupByName(conn->get(), name.c_str());
    if (d) virDomainFree(d);
    return d != nullptr;
  };
  EXPECT_FALSE(exists(stale.name));
  EXPECT_TRUE(exists(live.name));
  EXPECT_TRUE(exists(foreign.name));
  EXPECT_TRUE(exists(unowned.name));
}

// Shared kernel/initrd volumes are a cache: listed only with --shared-volumes, and then
// only the ones no domain names (here a defined, never started domain holds one as a disk).
TEST(CleanupTest, SharedVolumesNoDomainUsesAreListedOnlyWhenAsked) {
  const std::string uri = "qemu:///system";
  std::optional<LibvirtConnection> conn;
  try {
    conn.emplace(LibvirtConnection::Open(uri));
  } catch (const LibvirtError& e) {
    GTEST_SKIP() << e.what();
  }
  virStoragePoolPtr pool = virStoragePoolLookupByName(conn->get(), "storbed");
  if (pool == nullptr) GTEST_SKIP() << "no storbed pool on " << uri << " yet";
  const std::string dir = testing::ScratchDir("cleanup-shared");
  const std::string me = std::to_string(getpid());
  const std::string used = "initrd.cpio-cleanup-test-used-" + me;
  const std::string unused = "initrd.cpio-cleanup-test-unused-" + me;
  std::string used_path;
  for (const std::string& name : {used, unused}) {
    const std::string xml = "<volume><name>" + name +
                            "</name><capacity unit='KiB'>64</capacity>"
                            "<target><format type='raw'/></target></volume>";
    virStorageVolPtr vol = virStorageVolCreateXML(pool, xml.c_str(), 0);
    ASSERT_NE(vol, nullptr) << name << ": " << virGetLastErrorMessage();
    if (name == used) used_path = TakeLibvirtString(virStorageVolGetPath(vol));
    virStorageVolFree(vol);
  }
  const std::string holder = "cleanup-test-holder-" + me;
  const std::string holder_xml =
      "<domain type='qemu'><name>" + holder +
      "</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>"
      "<os><type arch='x86_64' machine='q35'>hvm</type></os><devices><disk type='file' "
      "device='disk'><source file='" + used_path + "'/><target dev='vda' bus='virtio'/>"
      "</disk></devices></domain>";
  virDomainPtr defined = virDomainDefineXML(conn->get(), holder_xml.c_str());
  ASSERT_NE(defined, nullptr) << virGetLastErrorMessage();

  const CliRun plain = RunCli({"cleanup", "--connect", uri, "--work-dir", dir, "--dry-run"},
                              dir + "/plain.log");
  const CliRun asked = RunCli(
      {"cleanup", "--connect", uri, "--work-dir", dir, "--dry-run", "--shared-volumes"},
      dir + "/asked.log");
  virDomainUndefine(defined);
  virDomainFree(defined);
  for (const std::string& name : {used, unused})
    if (virStorageVolPtr vol = virStorageVolLookupByName(pool, name.c_str())) {
      virStorageVolDelete(vol, 0);
      virStorageVolFree(vol);
    }
  virStoragePoolFree(pool);

  EXPECT_EQ(plain.exit, "exited with status 0") << plain.log;
  EXPECT_FALSE(Contains(plain.log, unused)) << plain.log;
  EXPECT_EQ(asked.exit, "exited with status 0") << asked.log;
  EXPECT_TRUE(Contains(asked.log, "would remove volume " + unused + " of pool storbed on " + uri +
                                      " (a shared kernel or initrd volume no domain uses)"))
      << asked.log;
  EXPECT_FALSE(Contains(asked.log, used)) << asked.log;
  fs::remove_all(dir);
}

// Regression (issue 15): a daemon that is not running failed cleanup with exit 1; it runs
// no domains, so there is nothing of it to clean and the rest is cleaned as usual.
TEST(CleanupTest, ADownDaemonIsOneNoteNamingTheUriAndTheRestStillRuns) {
  const std::string dir = testing::ScratchDir("cleanup-down");
  const std::string uri = "qemu+unix:///system?socket=" + dir + "/no-such.sock";
  const CliRun clean =
      RunCli({"cleanup", "--connect", uri, "--work-dir", dir}, dir + "/cleanup.log");
  EXPECT_EQ(clean.exit, "exited with status 0") << clean.log;
  EXPECT_TRUE(Contains(clean.log, "storbed: cleanup: note: libvirt at " + uri +
                                      ": skipped: libvirtd is not running (Failed to connect "
                                      "socket to '" + dir + "/no-such.sock': No such file or "
                                      "directory); its domains and volumes were not checked"))
      << clean.log;
  EXPECT_FALSE(Contains(clean.log, "failure")) << clean.log;
}

}  // namespace cleanup_test
}  // namespace storbed

namespace storbed {
namespace cleanup_test {  // named, not anonymous: a unity build joins files

// The issue's own flow: `storbed run --backend libvirt` SIGKILLed while its guest runs.
// libvirt destroys the AUTODESTROY domain with the connection; what stays behind (the
// console volume in the pool, the work dir) is for `storbed cleanup`.
TEST(CleanupTest, AfterSigkillOfALibvirtRunNoDomainStaysAndCleanupRemovesItsFiles) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  try {
    LibvirtConnection::Open("qemu:///system");
  } catch (const LibvirtError& e) {
    GTEST_SKIP() << e.what();
  }
  const std::string dir = testing::ScratchDir("cleanup-libvirt-kill");
  const std::string out = dir + "/out", work = dir + "/work";
  ChildProcess run = StartLongRun(dir, "cleanupkill", {"--backend", "libvirt"});
  const std::string session_domains = Shell("virsh -q list --all --name | grep cleanupkill");
  ASSERT_FALSE(session_domains.empty()) << "the run's domain is not running";

  kill(run.Pid(), SIGKILL);
  ASSERT_TRUE(run.WaitFor(std::chrono::seconds(30)));
  // AUTODESTROY: the daemon ends the domain when the connection goes.
  for (int i = 0; i < 100 && !Shell("virsh -q list --all --name | grep cleanupkill").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(Shell("virsh -q list --all --name | grep cleanupkill"), "");

  const CliRun clean = RunCli({"cleanup", "--work-dir", work, "--results", out},
                                 dir + "/cleanup.log");
  std::cout << clean.log;
  EXPECT_EQ(clean.exit, "exited with status 0") << clean.log;
  const std::string owner_gone = "owner pid " + std::to_string(run.Pid()) + " gone";
  EXPECT_TRUE(Contains(clean.log, "removed work dir ")) << clean.log;
  EXPECT_TRUE(Contains(clean.log, "cleanupkill-virtio-blk.console.log of pool storbed"))
      << clean.log;
  EXPECT_TRUE(Contains(clean.log, owner_gone)) << clean.log;
  EXPECT_TRUE(fs::is_empty(work));
  EXPECT_EQ(Shell("virsh -q vol-list storbed | grep cleanupkill"), "");
  EXPECT_TRUE(fs::exists(out + "/manifest.json"));  // results stay
}

}  // namespace cleanup_test
}  // namespace storbed

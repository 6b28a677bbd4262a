#include "cleanup/host_scanners.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "cleanup/test_support.h"

namespace storbed {
namespace {

using cleanup_test::FakeHost;
using cleanup_test::RecordingActions;

std::vector<std::string> QemuArgv(const std::string& name, const std::string& backing,
                                  const std::string& run_dir) {
  return {"/usr/bin/qemu-system-x86_64",
          "-name",
          name + ",debug-threads=on",
          "-blockdev",
          "driver=file,node-name=file-d0,filename=" + backing + ",aio=threads",
          "-chardev",
          "socket,id=agent,path=" + run_dir + "/agent.sock,server=on,wait=off",
          "-device",
          "virtserialport,bus=vser0.0,chardev=agent,name=org.storbed.agent.0",
          "-qmp",
          "unix:" + run_dir + "/qmp.sock,server=on,wait=off"};
}

class HostScannersTest : public ::testing::Test {
 protected:
  HostScanContext Context() {
    return HostScanContext{.proc_root = host_.proc(),
                           .sys_root = host_.sys(),
                           .work_roots = {host_.work()},
                           .results_dirs = {host_.root() + "/results"},
                           .this_host = "here",
                           .actions = &actions_};
  }
  // Finds, then removes everything found; returns "label | reason" lines.
  std::vector<std::string> FindAndRemove(LeftoverScanner& scanner) {
    std::vector<std::string> lines;
    for (const auto& item : scanner.Find()) {
      lines.push_back(item.label + " | " + item.reason + (item.needs_force ? " | force" : ""));
      scanner.Remove(item);
    }
    return lines;
  }

  FakeHost host_;
  RecordingActions actions_;
  const OwnerMarker dead_{.pid = 200, .start_ticks = 10, .host = "here"};
  const OwnerMarker live_{.pid = 100, .start_ticks = 50, .host = "here"};
};

TEST(StorbedQemuNameTest, NeedsTheStorbedNameAndAgentPort) {
  EXPECT_EQ(StorbedQemuName(QemuArgv("storbed-nvme", "/b", "/r")), "storbed-nvme");
  // libvirt's QEMU says "-name guest=storbed-...": the domain scanner's business.
  EXPECT_EQ(StorbedQemuName(QemuArgv("guest=storbed-s-nvme", "/b", "/r")), "");
  EXPECT_EQ(StorbedQemuName(QemuArgv("mine", "/b", "/r")), "");
  auto no_port = QemuArgv("storbed-nvme", "/b", "/r");
  no_port[8] = "virtserialport,name=org.other";
  EXPECT_EQ(StorbedQemuName(no_port), "");
  auto not_qemu = QemuArgv("storbed-nvme", "/b", "/r");
  not_qemu[0] = "/usr/bin/less";
  EXPECT_EQ(StorbedQemuName(not_qemu), "");
}

TEST_F(HostScannersTest, KillsQemuOfAStaleDirOrWhoseStorbedIsGoneAndSparesTheRest) {
  const std::string stale = host_.AddWorkDir("dead", &dead_);
  const std::string live = host_.AddWorkDir("live", &live_);
  host_.AddProcess(100, 1, 50, {"storbed", "run"});
  // A live run's QEMU: parent is its storbed.
  host_.AddProcess(101, 100, 60, QemuArgv("storbed-nvme", live + "/backing.raw", "/r/m"));
  // A dead run's QEMU, still parented (say, by a test harness) but using the stale dir.
  host_.AddProcess(102, 100, 61, QemuArgv("storbed-virtio-blk", stale + "/backing.raw", "/r/n"));
  // Reparented to pid 1 after its storbed died.
  host_.AddProcess(103, 1, 62, QemuArgv("storbed-a", "/dev/sdz", "/r/o"));
  // Reparented to a subreaper that started after it.
  host_.AddProcess(104, 105, 63, QemuArgv("storbed-b", "/dev/sdz", "/r/p"));
  host_.AddProcess(105, 1, 70, {"reaper"});
  // Not storbed's QEMU at all.
  host_.AddProcess(106, 1, 64, QemuArgv("guest=storbed-s-x", stale + "/backing.raw", "/r/q"));

  auto scanner = MakeStrayQemuScanner(Context());
  EXPECT_EQ(FindAndRemove(*scanner),
            (std::vector<std::string>{
                "QEMU pid 102 (storbed-virtio-blk) | uses " + stale + ", whose owner pid 200 gone",
                "QEMU pid 103 (storbed-a) | its storbed is gone (reparented to pid 1)",
                "QEMU pid 104 (storbed-b) | its storbed is gone (reparented to pid 105)"}));
  EXPECT_EQ(actions_.calls,
            (std::vector<std::string>{"kill 102@61", "kill 103@62", "kill 104@63"}));
}

// Regression (issue 15): a libvirtd killed mid-run left its QEMU running with the deleted
// backing open, and cleanup matched only "-name storbed-", not libvirt's "guest=storbed-".
TEST_F(HostScannersTest, KillsALibvirtQemuWhoseRunsOwnerIsGoneByItsStatusFile) {
  const std::string status = host_.root() + "/run-libvirt-qemu";
  std::filesystem::create_directories(status);
  auto status_xml = [&](const std::string& domain, int pid, const std::string& host) {
    std::ofstream(status + "/" + domain + ".xml")
        << "<domstatus><domain><name>" << domain << "</name><metadata><storbed:run "
        << "xmlns:storbed='https://storbed.dev/xmlns/run/1' session='s' pid='" << pid
        << "' host='" << host << "'/></metadata></domain></domstatus>\n";
  };
  host_.AddProcess(100, 1, 50, {"storbed", "run"});
  status_xml("storbed-dead-nvme", 200, "here");   // its storbed is gone
  status_xml("storbed-live-nvme", 100, "here");   // its storbed runs
  status_xml("storbed-far-nvme", 200, "there");   // another host's run: cannot be judged
  host_.AddProcess(301, 1, 60, QemuArgv("guest=storbed-dead-nvme,debug-threads=on", "/b", "/r"));
  host_.AddProcess(302, 1, 61, QemuArgv("guest=storbed-live-nvme,debug-threads=on", "/b", "/r"));
  host_.AddProcess(303, 1, 62, QemuArgv("guest=storbed-far-nvme,debug-threads=on", "/b", "/r"));
  host_.AddProcess(304, 1, 63, QemuArgv("guest=storbed-nofile-nvme", "/b", "/r"));
  HostScanContext c = Context();
  c.libvirt_status_dir = status;
  auto scanner = MakeStrayQemuScanner(c);
  EXPECT_EQ(FindAndRemove(*scanner),
            (std::vector<std::string>{"QEMU pid 301 (libvirt domain storbed-dead-nvme) | its "
                                      "run's owner pid 200 gone (libvirt's status file names "
                                      "it)"}));
  EXPECT_EQ(actions_.calls, (std::vector<std::string>{"kill 301@60"}));
}

TEST_F(HostScannersTest, DetachesLoopsOverStaleDirsOnly) {
  const std::string stale = host_.AddWorkDir("dead", &dead_);
  const std::string live = host_.AddWorkDir("live", &live_);
  host_.AddProcess(100, 1, 50, {"storbed"});
  host_.AddLoop(2, stale + "/backing.raw (deleted)");
  host_.AddLoop(3, live + "/backing.raw");
  host_.AddLoop(4, "/srv/other.img");
  auto scanner = MakeLoopScanner(Context());
  EXPECT_EQ(FindAndRemove(*scanner),
            (std::vector<std::string>{"loop device /dev/loop2 over " + stale +
                                      "/backing.raw | its work dir: owner pid 200 gone"}));
  EXPECT_EQ(actions_.calls, (std::vector<std::string>{"detach /dev/loop2"}));
}

TEST_F(HostScannersTest, RemovesStaleWorkDirsAndMarksOtherHostsForForce) {
  const std::string stale = host_.AddWorkDir("a", &dead_);
  host_.AddWorkDir("b", &live_);
  host_.AddProcess(100, 1, 50, {"storbed"});
  const OwnerMarker other{.pid = 9, .start_ticks = 1, .host = "there"};
  const std::string elsewhere = host_.AddWorkDir("c", &other);
  auto scanner = MakeWorkDirScanner(Context());
  auto items = scanner->Find();
  std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.id < b.id; });
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].label, "work dir " + stale);
  EXPECT_FALSE(items[0].needs_force);
  EXPECT_EQ(items[1].id, elsewhere);
  EXPECT_TRUE(items[1].needs_force);
  scanner->Remove(items[0]);
  EXPECT_EQ(actions_.calls, (std::vector<std::string>{"rmtree " + stale}));
}

// A real socket file, as QEMU leaves it.
void MakeSocket(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << path;
  close(fd);
}

TEST_F(HostScannersTest, RemovesSocketsNoRunningQemuNames) {
  const std::string results = host_.root() + "/results";
  MakeSocket(results + "/machine-nvme/agent.sock");
  MakeSocket(results + "/machine-nvme/qmp.sock");
  MakeSocket(results + "/machine-virtio-blk/qmp.sock");
  MakeSocket(results + "/machine-x/other.sock");
  cleanup_test::WriteFile(results + "/machine-y/agent.sock", "a plain file, not ours");
  host_.AddProcess(101, 1, 60,
                   QemuArgv("storbed-virtio-blk", "/b", results + "/machine-virtio-blk"));
  auto scanner = MakeSocketScanner(Context());
  auto lines = FindAndRemove(*scanner);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "socket " + results + "/machine-nvme/agent.sock | no running QEMU uses it",
                       "socket " + results + "/machine-nvme/qmp.sock | no running QEMU uses it"}));
}

// Regression (issue 38): cleanup removed a live socket another process had bound under a
// results dir, because no process named it on its command line. Expected: kept while
// /proc/net/unix lists it; buggy: removed.
TEST_F(HostScannersTest, SocketAProcessHasBoundIsKept) {
  const std::string results = host_.root() + "/results";
  MakeSocket(results + "/machine-nvme/qmp.sock");
  MakeSocket(results + "/machine-sata/qmp.sock");
  cleanup_test::WriteFile(host_.proc() + "/net/unix",
                          "Num       RefCount Protocol Flags    Type St Inode Path\n"
                          "0000000000000000: 00000002 00000000 00010000 0001 01 4242 " +
                              results +
                              "/machine-nvme/qmp.sock\n"
                              "0000000000000000: 00000002 00000000 00000000 0001 03 4243\n");
  auto scanner = MakeSocketScanner(Context());
  auto lines = FindAndRemove(*scanner);
  EXPECT_EQ(lines, (std::vector<std::string>{"socket " + results +
                                             "/machine-sata/qmp.sock | no running QEMU uses it"}));
}

TEST_F(HostScannersTest, SocketScannerWithoutResultsDirsFindsNothingAndAMissingOneFails) {
  HostScanContext c = Context();
  c.results_dirs.clear();
  EXPECT_TRUE(MakeSocketScanner(c)->Find().empty());
  c.results_dirs = {host_.root() + "/nope"};
  EXPECT_THROW(MakeSocketScanner(c)->Find(), std::runtime_error);
}

}  // namespace
}  // namespace storbed

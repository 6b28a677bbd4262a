// `storbed run --connect qemu+ssh://...` for real: the system libvirtd reached through a
// private sshd on 127.0.0.1 (scripts/private-sshd.sh), libvirt's openssh transport and
// virt-ssh-helper on the far side. Two URIs for the same daemon take storbed's two paths:
//  - root@127.0.0.1: UriIsOnThisHost says "this host" (any 127.x), so the backing is used
//    in place and the record's host is "local", as with qemu:///system;
//  - root@storbed-sshd-remote (an alias of 127.0.0.1 in the sshd's own ssh_config): not
//    this host, so storbed does what it does for a real remote host: it uploads the
//    backing per machine through a storage stream and reads no /proc of the "remote" QEMU.
// Host keys are checked against a scratch known_hosts (URI command= runs ssh with the
// sshd's ssh_config): no_verify=1 would make ssh add the key to root's ~/.ssh.
// Needs root, openssh-server (scripts/setup.sh) and the system libvirtd running.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include "backend/child_process.h"
#include "cleanup/process_table.h"
#include "libvirt/virt_handles.h"
#include "results/results_dir.h"
#include "second_libvirtd.h"
#include "test_env.h"
#include "test_paths.h"

namespace storbed {
namespace ssh_remote_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kScript = TestSourceDir() + "/scripts/private-sshd.sh";
const char* kSystemUri = "qemu:///system";
const char* kRemoteAlias = "storbed-sshd-remote";  // private-sshd.sh's ssh_config

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

// Every process below `root`: sshd's per-connection children and what they run.
std::vector<int> DescendantsOf(int root) {
  const ProcessTable table = ProcessTable::Read("/proc", /*with_fds=*/false);
  std::vector<int> found{root};
  for (size_t i = 0; i < found.size(); ++i)
    for (const ProcessInfo& p : table.processes())
      if (p.ppid == found[i]) found.push_back(p.pid);
  found.erase(found.begin());
  return found;
}

// Processes other than `except` whose command line mentions `needle` (ssh clients that
// libvirt started with the sshd's config).
std::vector<int> PidsMentioning(const std::string& needle, int except) {
  const ProcessTable table = ProcessTable::Read("/proc", /*with_fds=*/false);
  std::vector<int> pids;
  for (const ProcessInfo& p : table.processes()) {
    if (p.pid == except || p.pid == getpid()) continue;
    if (std::any_of(p.argv.begin(), p.argv.end(),
                    [&](const std::string& arg) { return arg.find(needle) != std::string::npos; }))
      pids.push_back(p.pid);
  }
  return pids;
}

// A private sshd as a child of the test, in its own /var/tmp/storbed-sshd-XXXXXX. Killed,
// with its sessions, and the directory removed on destruction.
class PrivateSshd {
 public:
  // nullptr with the reason in *why when it did not come up within 20 s.
  static std::unique_ptr<PrivateSshd> Start(std::string* why) {
    char tmpl[] = "/var/tmp/storbed-sshd-XXXXXX";
    if (!mkdtemp(tmpl)) {
      *why = std::string("cannot create ") + tmpl + ": " + strerror(errno);
      return nullptr;
    }
    const std::string dir = tmpl;
    const int port = testing::UnusedTcpPort();
    std::unique_ptr<PrivateSshd> sshd(new PrivateSshd(
        dir, port,
        ChildProcess::Start({kScript, dir, std::to_string(port)}, dir + "/sshd.log")));
    for (int i = 0; i < 200; ++i) {
      if (!sshd->process_.Running()) break;
      if (Accepts(port)) return sshd;
      std::this_thread::sleep_for(100ms);
    }
    *why = "private sshd on 127.0.0.1:" + std::to_string(port) + " " +
           sshd->process_.ExitDescription() + ": " + testing::Slurp(dir + "/sshd.log");
    return nullptr;
  }

  ~PrivateSshd() {
    if (::testing::Test::HasFailure())
      std::cout << "[ sshd log ] " << testing::Slurp(dir_ + "/sshd.log");
    // Sessions outlive a terminated listener (sshd keeps logins when it restarts).
    for (int pid : DescendantsOf(process_.Pid())) ::kill(pid, SIGKILL);
    process_.Terminate(2s);
    fs::remove_all(dir_);
  }
  PrivateSshd(const PrivateSshd&) = delete;
  PrivateSshd& operator=(const PrivateSshd&) = delete;

  // root@host:port with the generated client key, through ssh reading only our config.
  std::string Uri(const std::string& host) const {
    return "qemu+ssh://root@" + host + ":" + std::to_string(port_) + "/system?keyfile=" + dir_ +
           "/client_key&no_tty=1&command=" + dir_ + "/ssh";
  }
  const std::string& dir() const { return dir_; }
  int pid() const { return process_.Pid(); }

 private:
  PrivateSshd(std::string dir, int port, ChildProcess process)
      : dir_(std::move(dir)), port_(port), process_(std::move(process)) {}
  std::string dir_;
  int port_;
  ChildProcess process_;
};

// `read()` once it is empty, or after 10 s: libvirt tears down an AUTODESTROY domain, and
// ssh sessions end, a moment after storbed has gone.
template <typename F>
auto Eventually(F read) {
  auto value = read();
  for (int i = 0; i < 100 && !value.empty(); ++i) {
    std::this_thread::sleep_for(100ms);
    value = read();
  }
  return value;
}

// Volumes of the system daemon's storbed pool, and files in its directory, whose names
// hold `needle`. The directory too: a console log QEMU wrote is a volume only after a
// pool refresh.
std::vector<std::string> PoolEntriesWith(const std::string& needle) {
  LibvirtConnection conn = LibvirtConnection::Open(kSystemUri);
  PoolHandle pool(virStoragePoolLookupByName(conn.get(), "storbed"));
  if (!pool) conn.Fail("look up pool storbed");
  std::vector<std::string> found;
  virStorageVolPtr* vols = nullptr;
  const int n = virStoragePoolListAllVolumes(pool.get(), &vols, 0);
  for (int i = 0; i < n; ++i) {
    const std::string name = virStorageVolGetName(vols[i]);
    if (name.find(needle) != std::string::npos) found.push_back("volume " + name);
    virStorageVolFree(vols[i]);
  }
  free(vols);
  const std::string desc = TakeLibvirtString(virStoragePoolGetXMLDesc(pool.get(), 0));
  const size_t at = desc.find("<path>"), end = desc.find("</path>");
  if (at != std::string::npos && end != std::string::npos)
    for (const auto& f : fs::directory_iterator(desc.substr(at + 6, end - at - 6)))
      if (f.path().filename().string().find(needle) != std::string::npos)
        found.push_back("file " + f.path().string());
  return found;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

struct Variant {
  const char* name;
  const char* host;       // in the URI
  const char* host_name;  // what the record says
  bool uploaded;          // the remote path: the backing travels as a volume
};
// ctest shows the name, not the struct's bytes.
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

class SshRemoteTest : public ::testing::TestWithParam<Variant> {};

TEST_P(SshRemoteTest, RunOverQemuSshGivesGoodRecordsAndLeavesNothing) {
  std::string why;
  const GuestImage image = testing::SharedGuestImage(&why);
  if (image.kernel_path.empty()) GTEST_SKIP() << "no guest image: " << why;
  const Variant v = GetParam();
  auto sshd = PrivateSshd::Start(&why);
  ASSERT_TRUE(sshd) << why;
  const std::string uri = sshd->Uri(v.host);

  const std::string dir = testing::ScratchDir(std::string("ssh-") + v.name);
  const std::string out = dir + "/out", work = dir + "/work";
  fs::create_directories(work);
  std::ofstream(dir + "/scenario.json") << R"({
    "name": "ssh", "targets": ["virtio-blk"], "machine": {"memory": "256m", "vcpus": 1},
    "disk": {"size": "16m"},
    "jobs": [{"name": "rand", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
              "iodepth": 4, "io_size": "2m"}]})";
  const auto t0 = std::chrono::steady_clock::now();
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/scenario.json", "--connect", uri, "--accel", "tcg", "--out", out,
       "--work-dir", work, "--image-cache", testing::ImageCacheDir()},
      dir + "/cli.log");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;

  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 1u);
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    ASSERT_TRUE(r.result);
    EXPECT_GT(r.result->iops, 0);
    EXPECT_EQ(r.backend, "libvirt");
    EXPECT_EQ(r.host_name, v.host_name);
    EXPECT_TRUE(fs::file_size(out + "/" + r.console_log) > 0) << r.console_log;
    ASSERT_TRUE(r.ladder);
    std::map<std::string, const LayerStats*> layers;
    for (const auto& l : r.ladder->layers) layers[l.layer] = &l;
    for (const char* id : {kLayerApp, kLayerGuestBlock}) {
      ASSERT_TRUE(layers.count(id)) << id;
      EXPECT_TRUE(layers[id]->available) << id << ": " << layers[id]->reason;
    }
    // Block stats come through the libvirt API, so over ssh too.
    ASSERT_TRUE(layers.count(kLayerQemuBlock));
    EXPECT_TRUE(layers[kLayerQemuBlock]->available) << layers[kLayerQemuBlock]->reason;
    // The host device is this machine's /proc: never read for a "remote" QEMU.
    if (v.uploaded && layers.count(kLayerHostDevice)) {
      EXPECT_FALSE(layers[kLayerHostDevice]->available);
    }
    std::cout << "[ measured ] " << v.name << ": storbed run " << wall_s << " s, "
              << r.result->iops << " IOPS, wall " << r.wall_s << " s; ladder:";
    for (const auto& l : r.ladder->layers)
      std::cout << " " << l.layer << "=" << (l.available ? "yes" : "no (" + l.reason + ")");
    std::cout << "\n";
  }

  const auto manifest = nlohmann::json::parse(testing::Slurp(out + "/manifest.json"));
  ASSERT_EQ(manifest["hosts"].size(), 1u);
  EXPECT_EQ(manifest["hosts"][0]["uri"], uri);
  EXPECT_EQ(manifest["hosts"][0]["backend"], "libvirt");
  EXPECT_EQ(manifest["hosts"][0]["status"], "ok");
  ASSERT_EQ(manifest["machines"].size(), 1u);
  const auto& details = manifest["machines"].begin().value()["backend_details"];
  EXPECT_EQ(details["uri"], uri);
  EXPECT_EQ(details["backings"], v.uploaded ? "uploaded to pool storbed" : "used in place");
  EXPECT_NE(manifest["machines"].begin().value()["qemu_version"].get<std::string>().find(uri),
            std::string::npos);

  const std::string session = manifest["session"];
  ASSERT_FALSE(session.empty());
  const std::string prefix = std::string("storbed-") + session + "-";
  EXPECT_EQ(Join(Eventually([&] {
              std::vector<std::string> mine;
              for (const auto& d : testing::StorbedDomains(kSystemUri))
                if (d.rfind(prefix, 0) == 0 || d.rfind("<virsh", 0) == 0) mine.push_back(d);
              return mine;
            })),
            "");
  EXPECT_EQ(Join(PoolEntriesWith(session)), "");
  // storbed closed its connections: no ssh client and no session left.
  EXPECT_TRUE(Eventually([&] { return PidsMentioning(sshd->dir(), sshd->pid()); }).empty());
  EXPECT_TRUE(Eventually([&] { return DescendantsOf(sshd->pid()); }).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Paths, SshRemoteTest,
    ::testing::Values(Variant{"loopback_in_place", "127.0.0.1", "local", false},
                      Variant{"alias_uploaded", kRemoteAlias, kRemoteAlias, true}),
    [](const auto& info) { return std::string(info.param.name); });

// The fixture itself: it answers libvirt over ssh, and leaves no process or file.
TEST(PrivateSshdTest, ReachesTheSystemDaemonAndLeavesNothingBehind) {
  std::string why;
  auto sshd = PrivateSshd::Start(&why);
  ASSERT_TRUE(sshd) << why;
  const int pid = sshd->pid();
  const std::string dir = sshd->dir();
  const std::string known_hosts = testing::Slurp("/root/.ssh/known_hosts");
  for (const char* host : {"127.0.0.1", kRemoteAlias}) {
    const std::string uri = sshd->Uri(host);
    LibvirtConnection conn = LibvirtConnection::Open(uri);
    EXPECT_NE(TakeLibvirtString(virConnectGetHostname(conn.get())), "") << uri;
  }
  EXPECT_EQ(testing::Slurp("/root/.ssh/known_hosts"), known_hosts) << "ssh wrote root's";
  sshd.reset();
  EXPECT_NE(kill(pid, 0), 0) << "sshd " << pid << " survived its fixture";
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace ssh_remote_test
}  // namespace storbed

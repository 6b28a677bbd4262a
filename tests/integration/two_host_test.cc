// `storbed run --inventory` over two libvirt hosts on this machine: the system daemon and
// a second one (second_libvirtd.h). Needs root, libvirtd running (scripts/start-services.sh)
// and the libvirt backend.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "backend/child_process.h"
#include "results/results_dir.h"
#include "second_libvirtd.h"
#include "test_env.h"

namespace storbed {
namespace two_host_test {  // named, not anonymous: a unity build joins files

const char* kSystemUri = "qemu:///system";

using testing::CliRun;
using testing::Slurp;

// Two hosts boot three machines under TCG: allow more than the default.
CliRun RunCli(const std::vector<std::string>& args, const std::string& log) {
  return testing::RunCli(args, log, nullptr, std::chrono::minutes(15));
}

// The storbed domains still on `uri` after up to 10 s: a domain whose owner has gone is
// torn down by the daemon asynchronously (AUTODESTROY), so give it a moment.
std::vector<std::string> DomainsLeftOn(const std::string& uri) {
  std::vector<std::string> left;
  for (int i = 0; i < 100; ++i) {
    left = testing::StorbedDomains(uri);
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return left;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Why the system daemon cannot be used, or "".
std::string SystemDaemonProblem() {
  const auto domains = testing::StorbedDomains(kSystemUri);
  if (!domains.empty() && domains[0].rfind("<virsh failed", 0) == 0)
    return "the system libvirtd does not answer at qemu:///system (start it with "
           "scripts/start-services.sh): " + domains[0];
  return "";
}

// 2 jobs x (virtio-blk, nvme) x aio (threads, io_uring), minus nvme with io_uring: 6 runs
// of 1 s in 3 boots.
const char* kSixRuns = R"({
    "name": "twohost", "targets": ["virtio-blk", "nvme"],
    "machine": {"memory": "256m", "vcpus": 1}, "disk": {"size": "16m", "aio": ["threads", "io_uring"]},
    "matrix_exclude": [{"target": "nvme", "disk.aio": "io_uring"}],
    "jobs": [{"name": "seq", "bs": "64k", "runtime": 1},
             {"name": "rand", "pattern": "random", "bs": "4k", "runtime": 1}]})";

const char* kTwoRuns = R"({
    "name": "failover", "targets": ["virtio-blk", "nvme"],
    "machine": {"memory": "256m", "vcpus": 1}, "disk": {"size": "16m"},
    "jobs": [{"name": "seq", "bs": "64k", "runtime": 1}]})";

using testing::WriteFile;

std::vector<std::string> RunArgs(const std::string& scenario, const std::string& inventory,
                                 const std::string& out) {
  return {"run", scenario, "--inventory", inventory, "--out", out, "--accel", "tcg",
          "--image-cache", testing::ImageCacheDir()};
}

TEST(TwoHostTest, RunsSpreadOverBothHostsAndEveryRecordNamesItsHost) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (why = SystemDaemonProblem(); !why.empty()) GTEST_SKIP() << why;
  auto second = testing::SecondLibvirtd::Start(&why);
  if (!second) GTEST_SKIP() << why;

  const std::string dir = testing::ScratchDir("two-host");
  // Two slots on one host: two machines boot there at once, both ensuring the pool and
  // wanting the same kernel and initrd volumes (libvirt/storage_pool.h).
  const std::string inventory = WriteFile(dir + "/inventory.json", R"({"hosts": [
      {"name": "system", "uri": "qemu:///system", "max_guests": 2, "labels": ["test"]},
      {"name": "second", "uri": ")" + second->uri() + R"(", "max_guests": 1,
       "pool_dir": ")" + second->pool_dir() + R"("}]})");
  const std::string out = dir + "/out";
  const CliRun run = RunCli(RunArgs(WriteFile(dir + "/scenario.json", kSixRuns), inventory, out),
                            dir + "/cli.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;

  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 6u);
  std::set<std::string> hosts;
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    EXPECT_EQ(r.backend, "libvirt");
    hosts.insert(r.host_name);
  }
  EXPECT_EQ(hosts, (std::set<std::string>{"system", "second"}));
  // A machine's runs stay together on one host.
  std::map<std::string, std::set<std::string>> hosts_of_machine;
  for (const auto& r : records) hosts_of_machine[r.machine].insert(r.host_name);
  EXPECT_EQ(hosts_of_machine.size(), 3u);
  for (const auto& [machine, on] : hosts_of_machine) EXPECT_EQ(on.size(), 1u) << machine;

  const auto raw = nlohmann::json::parse(Slurp(out + "/results.json"));
  for (const auto& r : raw) EXPECT_TRUE(r.contains("host_name")) << r["run_id"];

  const std::string report = Slurp(out + "/report.txt");
  const std::string header = report.substr(0, report.find('\n'));
  EXPECT_NE(header.find("  host  "), std::string::npos) << report;
  const CliRun again = RunCli({"report", out}, dir + "/report.log");
  EXPECT_EQ(again.exit, "exited with status 0") << again.log;
  EXPECT_NE(again.log.find("  host  "), std::string::npos) << again.log;

  const auto manifest = nlohmann::json::parse(Slurp(out + "/manifest.json"));
  EXPECT_FALSE(manifest["session"].get<std::string>().empty());
  ASSERT_EQ(manifest["hosts"].size(), 2u);
  for (const auto& h : manifest["hosts"]) EXPECT_EQ(h["status"], "ok") << h.dump();
  EXPECT_TRUE(manifest["host_failures"].empty()) << manifest["host_failures"].dump();

  EXPECT_EQ(Join(DomainsLeftOn(kSystemUri)), "");
  EXPECT_EQ(Join(DomainsLeftOn(second->uri())), "");
}

TEST(TwoHostTest, AHostThatCannotBeReachedHandsItsRunsToTheOther) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (why = SystemDaemonProblem(); !why.empty()) GTEST_SKIP() << why;

  const std::string dir = testing::ScratchDir("two-host-failover");
  const std::string gone_uri =
      "qemu+tcp://127.0.0.1:" + std::to_string(testing::UnusedTcpPort()) + "/system";
  const std::string inventory = WriteFile(dir + "/inventory.json", R"({"hosts": [
      {"name": "system", "uri": "qemu:///system"},
      {"name": "gone", "uri": ")" + gone_uri + R"("}]})");
  const std::string out = dir + "/out";
  const CliRun run = RunCli(RunArgs(WriteFile(dir + "/scenario.json", kTwoRuns), inventory, out),
                            dir + "/cli.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;

  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    EXPECT_EQ(r.host_name, "system");
  }
  const auto manifest = nlohmann::json::parse(Slurp(out + "/manifest.json"));
  ASSERT_EQ(manifest["host_failures"].size(), 1u) << manifest.dump(2);
  const auto& failure = manifest["host_failures"][0];
  EXPECT_EQ(failure["host"], "gone");
  EXPECT_EQ(failure["uri"], gone_uri);
  EXPECT_NE(failure["error"].get<std::string>().find(gone_uri), std::string::npos)
      << failure.dump();
  EXPECT_FALSE(failure["at"].get<std::string>().empty());
  EXPECT_EQ(failure["moved_runs"].size(), 1u);
  std::map<std::string, std::string> status;
  for (const auto& h : manifest["hosts"]) status[h["name"]] = h["status"];
  EXPECT_EQ(status["system"], "ok");
  EXPECT_EQ(status["gone"], "failed");
  EXPECT_EQ(Join(DomainsLeftOn(kSystemUri)), "");
}

// The fixture itself: the daemon answers, and stopping it leaves no process or file.
TEST(SecondLibvirtdTest, StartsAnIsolatedDaemonAndLeavesNothingBehind) {
  std::string why;
  auto second = testing::SecondLibvirtd::Start(&why);
  if (!second) GTEST_SKIP() << why;
  const int pid = second->pid();
  const std::string dir = second->dir();
  ASSERT_GT(pid, 0);
  EXPECT_EQ(kill(pid, 0), 0);
  EXPECT_TRUE(testing::StorbedDomains(second->uri()).empty());
  second.reset();
  EXPECT_NE(kill(pid, 0), 0) << "libvirtd " << pid << " survived its fixture";
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace two_host_test
}  // namespace storbed

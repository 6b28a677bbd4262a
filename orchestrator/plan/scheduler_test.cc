#include "plan/scheduler.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace storbed {
namespace {

// Records every call; hosts named in `failing` throw HostFailedError for every unit
// (or from the `fail_after`-th unit they run on).
class FakeExecutor : public UnitExecutor {
 public:
  std::set<std::string> failing;
  size_t fail_after = 0;
  std::chrono::milliseconds unit_time{0};
  size_t throw_on_unit = SIZE_MAX;

  struct Call {
    std::string what;  // "run", "forget", "abandon"
    size_t unit;
    std::string host_or_why;
  };

  void Run(size_t unit, const std::string& host) override {
    {
      std::lock_guard lock(mu_);
      if (unit == throw_on_unit) throw std::runtime_error("results disk full");
      if (failing.count(host) && ran_on_[host]++ >= fail_after)
        throw HostFailedError("libvirt at qemu+tcp://" + host + "/system: cannot connect");
      const int now = ++running_[host];
      max_running_[host] = std::max(max_running_[host], now);
      calls.push_back({"run", unit, host});
    }
    std::this_thread::sleep_for(unit_time);
    std::lock_guard lock(mu_);
    --running_[host];
  }
  void Forget(size_t unit) override {
    std::lock_guard lock(mu_);
    calls.push_back({"forget", unit, ""});
  }
  void HostFailed(const HostFailure& f) override {
    std::lock_guard lock(mu_);
    host_failures.push_back(f);
  }
  void Abandon(size_t unit, const std::string& why) override {
    std::lock_guard lock(mu_);
    calls.push_back({"abandon", unit, why});
  }

  // unit -> host of its last successful run.
  std::map<size_t, std::string> RanOn() const {
    std::map<size_t, std::string> out;
    for (const auto& c : calls)
      if (c.what == "run") out[c.unit] = c.host_or_why;
    return out;
  }
  int MaxRunning(const std::string& host) {
    std::lock_guard lock(mu_);
    return max_running_[host];
  }

  std::vector<Call> calls;
  std::vector<HostFailure> host_failures;

 private:
  std::mutex mu_;
  std::map<std::string, int> running_, max_running_;
  std::map<std::string, size_t> ran_on_;
};

std::vector<WorkGroup> Groups(const std::vector<std::vector<size_t>>& units) {
  std::vector<WorkGroup> out;
  for (const auto& u : units) out.push_back({u, u.size(), false});
  return out;
}

TEST(SchedulerTest, OneSlotRunsEveryUnitInPlanOrderLocalOnesIncluded) {
  auto groups = Groups({{0}, {1, 2}, {3}});
  groups.push_back({{4}, 1, true});
  groups.push_back({{5, 6, 7}, 3, false});
  FakeExecutor exec;
  const auto status = RunSchedule(groups, {{"local", 1}}, exec);
  std::vector<size_t> order;
  for (const auto& c : exec.calls) order.push_back(c.unit);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(exec.calls[4].host_or_why, "");  // the local unit runs on no host
  EXPECT_EQ(status, (std::vector<HostStatus>{HostStatus::Ok}));
}

TEST(SchedulerTest, GroupsSpreadOverHostsAndEachGroupStaysOnOneHost) {
  const auto groups = Groups({{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  FakeExecutor exec;
  exec.unit_time = std::chrono::milliseconds(20);
  const auto status = RunSchedule(groups, {{"a", 1}, {"b", 1}}, exec);
  const auto ran = exec.RanOn();
  ASSERT_EQ(ran.size(), 8u);
  std::set<std::string> used;
  for (const auto& g : groups) {
    EXPECT_EQ(ran.at(g.units[0]), ran.at(g.units[1])) << "an A/B group mixed hosts";
    used.insert(ran.at(g.units[0]));
  }
  EXPECT_EQ(used, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(status, (std::vector<HostStatus>{HostStatus::Ok, HostStatus::Ok}));
}

TEST(SchedulerTest, AHostRunsAtMostMaxGuestsUnitsAtOnce) {
  const auto groups = Groups({{0}, {1}, {2}, {3}, {4}, {5}});
  FakeExecutor exec;
  exec.unit_time = std::chrono::milliseconds(50);
  RunSchedule(groups, {{"big", 2}}, exec);
  EXPECT_EQ(exec.RanOn().size(), 6u);
  EXPECT_EQ(exec.MaxRunning("big"), 2);
}

TEST(SchedulerTest, WithSeveralSlotsTheLargestGroupsStartFirst) {
  const auto groups = Groups({{0}, {1, 2, 3}, {4, 5}});
  FakeExecutor exec;
  // Units take a while, as real ones do: with instant units one host's thread could run
  // a whole group before the other's had started, and then take the next one as well.
  exec.unit_time = std::chrono::milliseconds(20);
  RunSchedule(groups, {{"a", 1}, {"b", 1}}, exec);
  // Each host's first unit is from one of the two largest groups.
  std::map<std::string, size_t> first;
  for (const auto& c : exec.calls)
    if (c.what == "run") first.emplace(c.host_or_why, c.unit);
  for (const auto& [host, unit] : first) EXPECT_TRUE(unit == 1 || unit == 4) << host << " " << unit;
}

TEST(SchedulerTest, AFailedHostsGroupMovesWholeToAnotherHostAndIsReported) {
  const auto groups = Groups({{0, 1}, {2, 3}});
  FakeExecutor exec;
  exec.failing = {"b"};
  exec.fail_after = 1;  // b runs one unit of its group, then fails on the second
  exec.unit_time = std::chrono::milliseconds(20);
  const auto status = RunSchedule(groups, {{"a", 1}, {"b", 1}}, exec);
  const auto ran = exec.RanOn();
  ASSERT_EQ(ran.size(), 4u);
  for (size_t u = 0; u < 4; ++u) EXPECT_EQ(ran.at(u), "a") << u;
  ASSERT_EQ(exec.host_failures.size(), 1u);
  EXPECT_EQ(exec.host_failures[0].host, "b");
  EXPECT_NE(exec.host_failures[0].error.find("cannot connect"), std::string::npos);
  const std::vector<size_t> moved = exec.host_failures[0].moved_units;
  ASSERT_EQ(moved.size(), 2u);
  // The half-finished attempt on b is forgotten before the group reruns on a.
  size_t forgets = 0;
  for (const auto& c : exec.calls) forgets += c.what == "forget";
  EXPECT_EQ(forgets, 2u);
  EXPECT_EQ(status, (std::vector<HostStatus>{HostStatus::Ok, HostStatus::Failed}));
}

TEST(SchedulerTest, WhenNoHostIsLeftTheRestIsAbandonedWithEveryHostsReason) {
  auto groups = Groups({{0}, {1, 2}});
  groups.push_back({{3}, 1, true});
  FakeExecutor exec;
  exec.failing = {"a", "b"};
  const auto status = RunSchedule(groups, {{"a", 1}, {"b", 2}}, exec);
  std::set<size_t> abandoned;
  for (const auto& c : exec.calls) {
    if (c.what != "abandon") continue;
    abandoned.insert(c.unit);
    EXPECT_NE(c.host_or_why.find("no host left to run on: "), std::string::npos);
    EXPECT_NE(c.host_or_why.find("a failed: libvirt at qemu+tcp://a/system"), std::string::npos)
        << c.host_or_why;
    EXPECT_NE(c.host_or_why.find("b failed: "), std::string::npos) << c.host_or_why;
  }
  EXPECT_EQ(abandoned, (std::set<size_t>{0, 1, 2}));
  // The local unit still runs: it needs no host.
  EXPECT_EQ(exec.RanOn(), (std::map<size_t, std::string>{{3, ""}}));
  EXPECT_EQ(status, (std::vector<HostStatus>{HostStatus::Failed, HostStatus::Failed}));
}

TEST(SchedulerTest, OneFailingHostAloneAbandonsItsUnitsButRunsLocalOnesInOrder) {
  auto groups = Groups({{0}});
  groups.push_back({{1}, 1, true});
  FakeExecutor exec;
  exec.failing = {"local"};
  RunSchedule(groups, {{"local", 1}}, exec);
  ASSERT_EQ(exec.calls.size(), 3u);
  EXPECT_EQ(exec.calls[0].what, "forget");
  EXPECT_EQ(exec.calls[1].what, "abandon");
  EXPECT_EQ(exec.calls[2].what, "run");
  EXPECT_EQ(exec.calls[2].unit, 1u);
}

TEST(SchedulerTest, LocalGroupsRunAfterEveryHostWhenHostsRunInParallel) {
  auto groups = Groups({{0}, {1}, {2}});
  groups.insert(groups.begin(), {{3}, 1, true});
  FakeExecutor exec;
  exec.unit_time = std::chrono::milliseconds(10);
  RunSchedule(groups, {{"a", 1}, {"b", 1}}, exec);
  ASSERT_EQ(exec.calls.size(), 4u);
  EXPECT_EQ(exec.calls.back().unit, 3u);
  EXPECT_EQ(exec.calls.back().host_or_why, "");
}

TEST(SchedulerTest, ARunErrorStopsTheScheduleAndIsRethrown) {
  const auto groups = Groups({{0}, {1}, {2}, {3}});
  FakeExecutor exec;
  exec.throw_on_unit = 0;
  EXPECT_THROW(RunSchedule(groups, {{"local", 1}}, exec), std::runtime_error);
  EXPECT_TRUE(exec.calls.empty());  // nothing after the error started
}

// Regression (issue 15): max_guests 1000000 ended in "terminate called without an active
// exception". A thread that cannot start is now an error naming the slot; the slots that
// did start are joined. Run in a child whose address space is capped, so thread stacks
// cannot be mapped after the first few.
TEST(SchedulerTest, AThreadThatCannotStartIsAnErrorNotAnAbort) {
  const pid_t child = fork();
  if (child == 0) {
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    // The current mappings plus room for a few 8 MiB stacks.
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    statm >> pages;
    limit.rlim_cur = pages * uint64_t(sysconf(_SC_PAGESIZE)) + (64ull << 20);
    setrlimit(RLIMIT_AS, &limit);
    FakeExecutor executor;
    executor.unit_time = std::chrono::milliseconds(50);
    std::vector<WorkGroup> groups;
    for (size_t u = 0; u < 64; ++u) groups.push_back({{u}, 1, false});
    const std::vector<ScheduledHost> hosts = {{"lab1", 4096}};
    try {
      RunSchedule(groups, hosts, executor);
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      const bool named = what.rfind("cannot start guest slot ", 0) == 0 &&
                         what.find("; lower max_guests") != std::string::npos;
      _exit(named ? 0 : 3);
    }
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: other message, 4: no error";
}

}  // namespace
}  // namespace storbed

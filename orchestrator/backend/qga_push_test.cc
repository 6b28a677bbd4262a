#include "backend/qga_push.h"

#include <atomic>

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "backend/agent_entry.h"
#include "backend/base64.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

nlohmann::json InfoWith(const std::vector<std::pair<std::string, bool>>& commands) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, enabled] : commands) list.push_back({{"name", name}, {"enabled", enabled}});
  return {{"version", "7.2.0"}, {"supported_commands", list}};
}

nlohmann::json AllEnabled() {
  std::vector<std::pair<std::string, bool>> c = {{"guest-ping", true}};
  for (const auto& n : RequiredQgaCommands()) c.emplace_back(n, true);
  return InfoWith(c);
}

TEST(QgaPushTest, MissingCommandsAreAbsentOrDisabledOnes) {
  EXPECT_TRUE(MissingQgaCommands(AllEnabled(), RequiredQgaCommands()).empty());
  const auto info = InfoWith({{"guest-file-open", true}, {"guest-exec", false}});
  EXPECT_EQ(MissingQgaCommands(info, {"guest-file-open", "guest-exec", "guest-file-write"}),
            (std::vector<std::string>{"guest-exec", "guest-file-write"}));
}

// A qemu-ga on the other end of a socketpair: ignores the first sync (as a port nobody
// opened yet would), then answers like qemu-ga and keeps what was written to the file.
struct FakeQga {
  nlohmann::json info = AllEnabled();
  int agent_exit = -1;  // >= 0: the started agent "exits" at once with this status
  std::string noexec;   // guest-exec of the agent under it fails as on a noexec mount
  std::string file_path, file_bytes;
  std::vector<std::string> execs;
  // The started agent has its port open (it did not "exit at once").
  std::atomic<bool> agent_serving{false};

  void Serve(LineChannel channel) {
    bool dropped_first_sync = false;
    std::string line;
    while (channel.ReadLine(&line, Clock::now() + 10s) == LineChannel::ReadStatus::kLine) {
      const size_t start = line.find_first_not_of('\xff');
      if (start == std::string::npos) continue;
      const auto req = nlohmann::json::parse(line.substr(start));
      const std::string cmd = req["execute"];
      const nlohmann::json args = req.value("arguments", nlohmann::json::object());
      nlohmann::json ret;
      if (cmd == "guest-sync-delimited") {
        if (!dropped_first_sync) {
          dropped_first_sync = true;
          continue;
        }
        channel.WriteLine("\xff" + nlohmann::json{{"return", args["id"]}}.dump());
        continue;
      }
      if (cmd == "guest-info") ret = info;
      if (cmd == "guest-file-open") {
        file_path = args["path"];
        file_bytes.clear();  // mode "w"
        ret = 5;
      }
      if (cmd == "guest-file-write") {
        const std::string bytes = Base64Decode(args["buf-b64"].get<std::string>());
        file_bytes += bytes;
        ret = {{"count", bytes.size()}, {"eof", false}};
      }
      if (cmd == "guest-file-close") ret = nlohmann::json::object();
      if (cmd == "guest-exec") {
        const std::string path = args["path"];
        execs.push_back(path + " " + args["arg"].dump());
        if (!noexec.empty() && path.rfind(noexec, 0) == 0 &&
            path.find("storbed-agent") != std::string::npos) {
          channel.WriteLine(nlohmann::json{{"error",
                                            {{"class", "GenericError"},
                                             {"desc", "Failed to execute child process \"" +
                                                          path + "\" (Permission denied)"}}}}
                                .dump());
          continue;
        }
        ret = {{"pid", 100 + execs.size()}};
        if (path.find("storbed-agent") != std::string::npos && agent_exit < 0)
          agent_serving = true;
      }
      if (cmd == "guest-exec-status") {
        const bool is_agent = args["pid"] == static_cast<int64_t>(100 + execs.size()) &&
                              execs.back().find("--serve-port") != std::string::npos;
        if (is_agent && agent_exit < 0)
          ret = {{"exited", false}};
        else
          ret = {{"exited", true},
                 {"exitcode", is_agent ? agent_exit : 0},
                 {"err-data", Base64Encode(is_agent ? "no port org.storbed.agent.0" : "")}};
      }
      channel.WriteLine(nlohmann::json{{"return", ret}}.dump());
    }
  }
};

struct QgaPushToFakeGuestTest : ::testing::Test {
  // One file per test: ctest runs this fixture's tests as parallel processes.
  std::string agent = std::filesystem::temp_directory_path() /
                      ("storbed-qga-push-agent-" + std::to_string(::getpid()));
  void SetUp() override {
    std::string bytes;
    for (int i = 0; i < 1200000; ++i) bytes += char(i * 7);  // three chunks
    std::ofstream(agent, std::ios::binary) << bytes;
  }
  void TearDown() override { std::filesystem::remove(agent); }

  AgentPushReport Push(FakeQga& fake) {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    std::thread guest([&] { fake.Serve(LineChannel(UniqueFd(fds[1]), "host")); });
    std::optional<QgaClient> qga;
    qga.emplace(LineChannel(UniqueFd(fds[0]), "fake qga", HostChannelOptions()));
    AgentPushReport r;
    std::exception_ptr error;
    try {
      ForeignRoot foreign;
      foreign.agent_binary = agent;
      foreign.push = AgentPushWay::Qga;
      const AgentEntryPorts ports{.qga = &*qga,
                                  .agent_port_open = [&fake] { return fake.agent_serving.load(); }};
      r = BringAgentIn(foreign, ports, Clock::now() + 10s, [] {});
    } catch (...) {
      error = std::current_exception();
    }
    qga.reset();  // the fake reads the end of its stream and returns
    guest.join();
    if (error) std::rethrow_exception(error);
    return r;
  }

  // The message of a push that must fail; "" and a test failure when it went through.
  std::string PushError(FakeQga& fake) {
    try {
      Push(fake);
    } catch (const AgentEntryError& e) {
      return e.what();
    }
    ADD_FAILURE() << "the push went through";
    return "";
  }
};

TEST_F(QgaPushToFakeGuestTest, CopiesTheBinaryMakesItExecutableAndStartsIt) {
  FakeQga fake;
  const AgentPushReport r = Push(fake);
  std::ifstream in(agent, std::ios::binary);
  const std::string want((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(fake.file_path, "/var/tmp/storbed-agent");
  EXPECT_EQ(fake.file_bytes, want);
  ASSERT_EQ(fake.execs.size(), 2u);
  EXPECT_EQ(fake.execs[0], "/bin/chmod [\"0700\",\"/var/tmp/storbed-agent\"]");
  EXPECT_EQ(fake.execs[1], "/var/tmp/storbed-agent [\"--serve-port\"]");
  EXPECT_EQ(r.path, "qga");
  EXPECT_EQ(r.qga_version, "7.2.0");
  EXPECT_EQ(r.bytes, want.size());
  EXPECT_EQ(r.guest_pid, 102);
  EXPECT_EQ(r.guest_path, "/var/tmp/storbed-agent");
  EXPECT_TRUE(r.skipped.empty());
}

TEST_F(QgaPushToFakeGuestTest, ANoexecVarTmpMovesTheAgentToRun) {
  FakeQga fake;
  fake.noexec = "/var/tmp/";
  const AgentPushReport r = Push(fake);
  EXPECT_EQ(r.guest_path, "/run/storbed-agent");
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0], "/var/tmp/storbed-agent: Permission denied on exec (mounted noexec)");
  EXPECT_EQ(fake.file_path, "/run/storbed-agent");
  ASSERT_EQ(fake.execs.size(), 5u);
  EXPECT_EQ(fake.execs[2], "/bin/rm [\"-f\",\"/var/tmp/storbed-agent\"]");
  EXPECT_EQ(fake.execs[4], "/run/storbed-agent [\"--serve-port\"]");
}

TEST_F(QgaPushToFakeGuestTest, NoExecutablePlaceAtAllIsNamed) {
  FakeQga fake;
  fake.noexec = "/";
  const std::string what = PushError(fake);
  EXPECT_NE(what.find("/var/tmp/storbed-agent: Permission denied"), std::string::npos) << what;
  EXPECT_NE(what.find("/run/storbed-agent: Permission denied"), std::string::npos) << what;
}

TEST_F(QgaPushToFakeGuestTest, BlockedCommandsNameTheFixAndTheFallback) {
  FakeQga fake;
  fake.info = InfoWith({{"guest-file-open", true}, {"guest-file-write", true},
                        {"guest-file-close", true}, {"guest-exec", false},
                        {"guest-exec-status", true}});
  const std::string what = PushError(fake);
  EXPECT_NE(what.find("blocks guest-exec,"), std::string::npos) << what;
  EXPECT_NE(what.find("--allow-rpcs"), std::string::npos) << what;
  EXPECT_NE(what.find("cloud-init"), std::string::npos) << what;
  EXPECT_TRUE(fake.file_path.empty());  // nothing written before the check
}

TEST_F(QgaPushToFakeGuestTest, AnAgentThatExitsAtOnceIsReportedWithItsStderr) {
  FakeQga fake;
  fake.agent_exit = 4;
  const std::string what = PushError(fake);
  EXPECT_NE(what.find("exit status 4"), std::string::npos) << what;
  EXPECT_NE(what.find("no port org.storbed.agent.0"), std::string::npos) << what;
}

TEST(QgaSyncTest, NoGuestAgentIsATimeoutNamingQemuGuestAgent) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  UniqueFd silent(fds[1]);  // nobody answers
  QgaClient qga(LineChannel(UniqueFd(fds[0]), "silent", HostChannelOptions()));
  const auto start = Clock::now();
  ForeignRoot foreign;
  foreign.agent_binary = "/proc/self/exe";
  foreign.push = AgentPushWay::Qga;
  try {
    BringAgentIn(foreign, {.qga = &qga, .agent_port_open = [] { return false; }},
                 Clock::now() + 600ms, [] {});
    FAIL() << "pushed to nobody";
  } catch (const AgentEntryError& e) {
    EXPECT_NE(std::string(e.what()).find("qemu-guest-agent"), std::string::npos) << e.what();
  }
  EXPECT_LT(Clock::now() - start, 3s);
}

}  // namespace
}  // namespace storbed

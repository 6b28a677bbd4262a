#include "backend/agent_entry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>

#include "backend/base64.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

// qemu-ga as a script: silent for the first `silent_syncs` syncs, then each command
// answered by its handler; a command without one is refused as a blocked one would be.
class ScriptedQga : public QgaChannel {
 public:
  int silent_syncs = 0;
  std::map<std::string, std::function<nlohmann::json(const nlohmann::json&)>> handlers;
  std::vector<std::string> calls;

  void Sync(Clock::time_point, const std::function<void()>&, std::chrono::milliseconds) override {
    if (silent_syncs-- > 0) throw QgaError("no answer to guest-sync-delimited");
  }
  nlohmann::json Execute(const std::string& command, const nlohmann::json& arguments,
                         std::chrono::milliseconds, const std::function<void()>&) override {
    calls.push_back(command);
    const auto h = handlers.find(command);
    if (h == handlers.end())
      throw QgaCommandError(command, "GenericError", "The command " + command + " has been disabled");
    return h->second(arguments);
  }
};

nlohmann::json Info(const std::vector<std::string>& blocked) {
  nlohmann::json commands = nlohmann::json::array();
  for (const std::string& c : RequiredQgaCommands()) {
    const bool off = std::find(blocked.begin(), blocked.end(), c) != blocked.end();
    commands.push_back({{"name", c}, {"enabled", !off}});
  }
  return {{"version", "7.2.0"}, {"supported_commands", commands}};
}

// Guest files for guest-file-open "r": path -> contents; others are missing.
void ServeFiles(ScriptedQga& qga, std::map<std::string, std::string> files) {
  auto open = std::make_shared<std::map<int64_t, std::string>>();
  qga.handlers["guest-file-open"] = [files, open](const nlohmann::json& a) -> nlohmann::json {
    const std::string path = a.at("path");
    if (a.value("mode", "") == "w") return 7;
    const auto f = files.find(path);
    if (f == files.end())
      throw QgaCommandError("guest-file-open", "GenericError",
                            "failed to open file '" + path + "' (mode: 'r'): No such file or directory");
    const int64_t handle = 100 + open->size();
    (*open)[handle] = f->second;
    return handle;
  };
  qga.handlers["guest-file-read"] = [open](const nlohmann::json& a) -> nlohmann::json {
    return {{"count", 1}, {"buf-b64", Base64Encode(open->at(a.at("handle").get<int64_t>()))},
            {"eof", true}};
  };
  qga.handlers["guest-file-close"] = [](const nlohmann::json&) { return nlohmann::json::object(); };
}

struct AgentEntryTest : ::testing::Test {
  // One file per test: ctest runs this fixture's tests as parallel processes.
  std::string agent = std::filesystem::temp_directory_path() /
                      ("storbed-agent-entry-agent-" + std::to_string(::getpid()));
  std::atomic<bool> port_open{false};
  ForeignRoot foreign;
  void SetUp() override {
    std::ofstream(agent, std::ios::binary) << std::string(1000, 'a');
    foreign.overlay = "/o";
    foreign.agent_binary = agent;
    foreign.seed_image = "/seed.iso";
    foreign.agent_disk = "/agent.img";
  }
  void TearDown() override { std::filesystem::remove(agent); }

  AgentPushReport Bring(ScriptedQga* qga, std::chrono::milliseconds within = 5s,
                        std::chrono::milliseconds grace = 60s) {
    const AgentEntryPorts ports{.qga = qga, .agent_port_open = [this] { return port_open.load(); }};
    return BringAgentIn(foreign, ports, Clock::now() + within, [] {}, grace);
  }
  std::string Failure(ScriptedQga* qga, std::chrono::milliseconds within = 5s,
                      std::chrono::milliseconds grace = 60s) {
    try {
      Bring(qga, within, grace);
    } catch (const AgentEntryError& e) {
      return e.what();
    }
    ADD_FAILURE() << "the entry went through";
    return "";
  }
};

TEST_F(AgentEntryTest, QgaPushesWhenItAllowsEverythingAndThePortThenOpens) {
  foreign.push = AgentPushWay::Qga;
  ScriptedQga qga;
  qga.silent_syncs = 2;
  qga.handlers["guest-info"] = [](const nlohmann::json&) { return Info({}); };
  ServeFiles(qga, {});
  qga.handlers["guest-file-write"] = [](const nlohmann::json& a) -> nlohmann::json {
    return {{"count", Base64Decode(a.at("buf-b64").get<std::string>()).size()}};
  };
  qga.handlers["guest-exec"] = [this](const nlohmann::json& a) -> nlohmann::json {
    if (a.at("path") != "/bin/chmod") port_open = true;  // the agent opens its port
    return {{"pid", a.at("path") == "/bin/chmod" ? 11 : 12}};
  };
  qga.handlers["guest-exec-status"] = [](const nlohmann::json& a) -> nlohmann::json {
    if (a.at("pid") == 11) return {{"exited", true}, {"exitcode", 0}};
    return {{"exited", false}};
  };
  const AgentPushReport r = Bring(&qga);
  EXPECT_EQ(r.path, "qga");
  EXPECT_EQ(r.bytes, 1000u);
  EXPECT_EQ(r.guest_pid, 12);
  EXPECT_EQ(r.qga_version, "7.2.0");
  const nlohmann::json j = r;
  EXPECT_EQ(j["guest_path"], PushedAgentPaths()[0]);
}

TEST_F(AgentEntryTest, BlockedGuestExecWithoutCloudInitFailsAtOnceNamingBothWays) {
  ScriptedQga qga;
  qga.handlers["guest-info"] = [](const nlohmann::json&) { return Info({"guest-exec"}); };
  ServeFiles(qga, {{"/proc/cmdline", "root=/dev/vda"}});  // no /usr/bin/cloud-init
  const auto start = Clock::now();
  const std::string what = Failure(&qga, 30s);
  EXPECT_LT(Clock::now() - start, 5s) << "must not wait out the deadline";
  EXPECT_NE(what.find("blocks guest-exec"), std::string::npos) << what;
  EXPECT_NE(what.find("the guest has no /usr/bin/cloud-init"), std::string::npos) << what;
  EXPECT_NE(what.find("(a) the image's qemu-guest-agent"), std::string::npos) << what;
  EXPECT_NE(what.find("(b) cloud-init with the NoCloud data source"), std::string::npos) << what;
}

TEST_F(AgentEntryTest, CloudInitsOwnOffSwitchesRuleItOut) {
  for (const auto& [files, reason] :
       std::vector<std::pair<std::map<std::string, std::string>, std::string>>{
           {{{"/usr/bin/cloud-init", "#!"}, {"/etc/cloud/cloud-init.disabled", ""},
             {"/proc/cmdline", ""}},
            "/etc/cloud/cloud-init.disabled exists"},
           {{{"/usr/bin/cloud-init", "#!"}, {"/proc/cmdline", "ro cloud-init=disabled quiet"}},
            "cloud-init=disabled"}}) {
    SCOPED_TRACE(reason);
    ScriptedQga qga;
    qga.handlers["guest-info"] = [](const nlohmann::json&) { return Info({"guest-exec"}); };
    ServeFiles(qga, files);
    EXPECT_NE(Failure(&qga, 30s).find(reason), std::string::npos);
  }
}

TEST_F(AgentEntryTest, CloudInitStartsTheAgentWhenQgaBlocksGuestExec) {
  ScriptedQga qga;
  qga.handlers["guest-info"] = [](const nlohmann::json&) { return Info({"guest-exec"}); };
  ServeFiles(qga, {{"/usr/bin/cloud-init", "#!"}, {"/proc/cmdline", "ro"}});
  std::thread cloud_init([this] {
    std::this_thread::sleep_for(600ms);
    port_open = true;
  });
  const AgentPushReport r = Bring(&qga);
  cloud_init.join();
  EXPECT_EQ(r.path, "cloud-init");
  EXPECT_NE(r.not_qga.find("blocks guest-exec"), std::string::npos) << r.not_qga;
  EXPECT_GE(r.agent_up_s, 0.5);
  const nlohmann::json j = r;
  EXPECT_FALSE(j.contains("guest_pid")) << j.dump();
  EXPECT_EQ(j["qga_version"], "7.2.0");
}

TEST_F(AgentEntryTest, UnknownCloudInitGetsOnlyTheGraceNotTheDeadline) {
  ScriptedQga qga;  // blocks guest-exec and every file command: nothing can be read
  qga.handlers["guest-info"] = [](const nlohmann::json&) { return Info({"guest-exec"}); };
  const auto start = Clock::now();
  const std::string what = Failure(&qga, 30s, 500ms);
  EXPECT_LT(Clock::now() - start, 5s);
  EXPECT_NE(what.find("cloud-init started no agent"), std::string::npos) << what;
  EXPECT_NE(what.find("could not show whether the guest has cloud-init"), std::string::npos) << what;
}

TEST_F(AgentEntryTest, CloudInitOnlyNeedsNoQgaAndNamesWhatItWaitedFor) {
  foreign.push = AgentPushWay::CloudInit;
  port_open = true;
  EXPECT_EQ(Bring(nullptr).path, "cloud-init");
  port_open = false;
  const std::string what = Failure(nullptr, 400ms);
  EXPECT_NE(what.find("no QEMU guest agent channel"), std::string::npos) << what;
  EXPECT_NE(what.find("cloud-init started no agent"), std::string::npos) << what;
  EXPECT_NE(what.find("machine.agent_push cloud-init left (a) out"), std::string::npos) << what;
}

TEST_F(AgentEntryTest, QgaOnlyThatNeverAnswersSaysSoAtTheDeadline) {
  foreign.push = AgentPushWay::Qga;
  foreign.seed_image.clear();
  foreign.agent_disk.clear();
  ScriptedQga qga;
  qga.silent_syncs = 1000;
  const std::string what = Failure(&qga, 300ms);
  EXPECT_NE(what.find("no QEMU guest agent answered"), std::string::npos) << what;
  EXPECT_NE(what.find("machine.agent_push qga left (b) out"), std::string::npos) << what;
}

TEST_F(AgentEntryTest, AnAgentAlreadyServingThePortIsNotPushedAgain) {
  ScriptedQga qga;
  qga.handlers["guest-info"] = [this](const nlohmann::json&) {
    port_open = true;  // cloud-init's agent came up while qemu-ga answered
    return Info({});
  };
  const AgentPushReport r = Bring(&qga);
  EXPECT_EQ(r.path, "cloud-init");
  EXPECT_EQ(std::count(qga.calls.begin(), qga.calls.end(), "guest-exec"), 0);
}

}  // namespace
}  // namespace storbed

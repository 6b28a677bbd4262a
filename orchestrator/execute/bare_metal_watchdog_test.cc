// The bare-metal agent's watchdog (RunStandaloneAgent): an agent whose log stops growing,
// heartbeats included, is named within the silence limit, killed and reaped; one that
// keeps beating through a job longer than the limit is not. Fake agents are sh scripts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "backend/agent_link.h"
#include "execute/bare_metal_target.h"
#include "execute/temp_dir.h"
#include "protocol.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

class BareMetalWatchdogTest : public ::testing::Test {
 protected:
  // An executable sh script in the test's dir.
  std::string Agent(const std::string& body) {
    const std::string path = dir_.path() + "/agent.sh";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  JobSpec Job() {
    JobSpec job;
    job.name = "j";
    return job;
  }
  // The pid the message names: "(pid 1234, ...".
  static int NamedPid(const std::string& message) {
    const size_t at = message.find("(pid ");
    return at == std::string::npos ? 0 : std::stoi(message.substr(at + 5));
  }

  TempDir dir_{::testing::TempDir(), "watchdog-test-"};
};

// Regression (issue 38): SIGSTOP on the host agent mid-job left storbed waiting for the
// job's whole timeout (still waiting after 90 s). Expected: named within the silence limit,
// as stopped, and the agent killed and reaped; buggy: no error until the timeout.
TEST_F(BareMetalWatchdogTest, AStoppedAgentIsNamedWithinTheSilenceLimitAndKilled) {
  const std::string beat = EncodeMessage(Heartbeat{0.1});
  const std::string agent =
      Agent("echo '" + beat + "'\necho '" + beat + "'\nkill -STOP $$\n" + "exec sleep 60");
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    RunStandaloneAgent(agent, Job(), dir_.path(), "agent-j.log", 60s, "", 500ms);
    FAIL() << "a stopped agent was not named";
  } catch (const AgentSilentError& e) {
    message = e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(message.rfind("the bare-metal agent sent nothing for 0.5 s while running job j (it "
                          "sends a heartbeat every 2 s; 2 came before the silence): it hangs "
                          "(pid ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find(", stopped: state T); it was killed (log: bare-metal/agent-j.log)"),
            std::string::npos)
      << message;
  const int pid = NamedPid(message);
  ASSERT_GT(pid, 0) << message;
  EXPECT_NE(kill(pid, 0), 0) << "the agent " << pid << " is still there (or a zombie)";
}

TEST_F(BareMetalWatchdogTest, AnAgentThatSaysNothingAtAllIsNamedToo) {
  const std::string agent = Agent("exec sleep 60");
  try {
    RunStandaloneAgent(agent, Job(), dir_.path(), "agent-j.log", 60s, "", 300ms);
    FAIL() << "a silent agent was not named";
  } catch (const AgentSilentError& e) {
    EXPECT_NE(std::string(e.what()).find("0 came before the silence"), std::string::npos)
        << e.what();
    const int pid = NamedPid(e.what());
    ASSERT_GT(pid, 0) << e.what();
    EXPECT_NE(kill(pid, 0), 0) << "the agent " << pid << " is still there";
  }
}

// A job longer than the silence limit whose agent keeps beating is a job, not a hang: its
// result comes back, and a heartbeat before it does not hide it.
TEST_F(BareMetalWatchdogTest, AnAgentThatKeepsBeatingPastTheLimitGivesItsResult) {
  JobResult result;
  result.job = "j";
  result.ios = 42;
  const std::string beat = EncodeMessage(Heartbeat{0.1});
  const std::string agent =
      Agent("for i in 1 2 3 4 5 6 7 8 9 10; do echo '" + beat + "'; sleep 0.1; done\necho '" +
            nlohmann::json(result).dump() + "'");
  const JobResult got =
      RunStandaloneAgent(agent, Job(), dir_.path(), "agent-j.log", 60s, "", 400ms);
  EXPECT_EQ(got.ios, 42u);
}

// A failing agent's own sentence is named, not the heartbeat before it.
TEST_F(BareMetalWatchdogTest, AFailingAgentIsNamedByItsSentenceNotAHeartbeat) {
  const std::string beat = EncodeMessage(Heartbeat{0.1});
  const std::string agent =
      Agent("echo 'storbed-agent: cannot open /dev/x' >&2\necho '" + beat + "'\nexit 1");
  try {
    RunStandaloneAgent(agent, Job(), dir_.path(), "agent-j.log", 60s, "", 2s);
    FAIL() << "a failed agent gave a result";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()),
              "the bare-metal agent exited with status 1 (log: bare-metal/agent-j.log): "
              "storbed-agent: cannot open /dev/x");
  }
}

}  // namespace
}  // namespace storbed

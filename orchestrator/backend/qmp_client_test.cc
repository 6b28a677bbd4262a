#include "backend/qmp_client.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "backend/child_process.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr const char* kGreeting =
    R"({"QMP": {"version": {"qemu": {"micro": 22, "minor": 2, "major": 7}, "package": ""},)"
    R"( "capabilities": ["oob"]}})";

TEST(QmpParseTest, ClassifiesLines) {
  EXPECT_TRUE(std::holds_alternative<QmpGreeting>(ParseQmpLine(kGreeting)));
  QmpLine ev = ParseQmpLine(
      R"({"timestamp": {"seconds": 1, "microseconds": 2}, "event": "SHUTDOWN", )"
      R"("data": {"guest": false, "reason": "host-qmp-quit"}})");
  ASSERT_TRUE(std::holds_alternative<QmpEvent>(ev));
  EXPECT_EQ(std::get<QmpEvent>(ev).event, "SHUTDOWN");
  EXPECT_EQ(std::get<QmpEvent>(ev).data["reason"], "host-qmp-quit");
  QmpLine ok = ParseQmpLine(R"({"return": {"status": "running"}, "id": 3})");
  ASSERT_TRUE(std::holds_alternative<QmpReply>(ok));
  EXPECT_TRUE(std::get<QmpReply>(ok).ok);
  EXPECT_EQ(std::get<QmpReply>(ok).id, 3);
  QmpLine err = ParseQmpLine(
      R"({"id": 4, "error": {"class": "CommandNotFound", "desc": "The command x has not been found"}})");
  ASSERT_TRUE(std::holds_alternative<QmpReply>(err));
  EXPECT_FALSE(std::get<QmpReply>(err).ok);
  EXPECT_EQ(std::get<QmpReply>(err).error_class, "CommandNotFound");
}

TEST(QmpParseTest, MalformedLinesKeepTheRawText) {
  for (std::string bad : {"not json", "[1,2]", R"({"hello": 1})", R"({"event": 5})",
                          R"({"error": {"class": 1}})"}) {
    try {
      ParseQmpLine(bad);
      FAIL() << bad;
    } catch (const QmpProtocolError& e) {
      EXPECT_EQ(e.raw(), bad);
    }
  }
}

// A scripted QMP server on the other end of a socketpair.
class FakeQmpServer {
 public:
  explicit FakeQmpServer(int fd) : fd_(fd) {}
  void Send(const std::string& line) {
    std::string s = line + "\n";
    ASSERT_EQ(::write(fd_.get(), s.data(), s.size()), static_cast<ssize_t>(s.size()));
  }
  json Receive() {
    std::string line;
    char c;
    while (::read(fd_.get(), &c, 1) == 1 && c != '\n') line += c;
    return json::parse(line);
  }
  void Close() { fd_.reset(); }

 private:
  UniqueFd fd_;
};

TEST(QmpClientTest, EventBeforeReplyIsKeptAsEvent) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  FakeQmpServer server(sv[1]);
  std::thread script([&] {
    server.Send(kGreeting);
    json caps = server.Receive();
    EXPECT_EQ(caps["execute"], "qmp_capabilities");
    server.Send(R"({"return": {}, "id": )" + caps["id"].dump() + "}");
    json q = server.Receive();
    EXPECT_EQ(q["execute"], "query-status");
    server.Send(R"({"event": "RESUME", "timestamp": {"seconds": 1, "microseconds": 0}})");
    server.Send(R"({"return": {"status": "stale"}, "id": 999})");  // not ours
    server.Send(R"({"return": {"status": "running", "running": true}, "id": )" +
                q["id"].dump() + "}");
    json bad = server.Receive();
    EXPECT_EQ(bad["arguments"]["x"], 1);
    server.Send("garbage from qemu");
    server.Close();
  });
  QmpClient c = QmpClient::Handshake(LineChannel(UniqueFd(sv[0]), "fake qmp"),
                                     Clock::now() + 5s);
  EXPECT_EQ(c.QemuVersion(), "7.2.22");
  json status = c.Execute("query-status");
  EXPECT_EQ(status["status"], "running");
  ASSERT_EQ(c.Events().size(), 1u);
  EXPECT_EQ(c.Events()[0].event, "RESUME");
  try {
    c.Execute("bad", {{"x", 1}});
    FAIL();
  } catch (const QmpProtocolError& e) {
    EXPECT_EQ(e.raw(), "garbage from qemu");
  }
  EXPECT_THROW(c.Execute("after-close", {}, 1s), QmpConnectionError);
  script.join();
}

TEST(QmpClientTest, TimeoutIsAConnectionError) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  FakeQmpServer server(sv[1]);
  server.Send(kGreeting);
  std::thread script([&] {
    json caps = server.Receive();
    server.Send(R"({"return": {}, "id": )" + caps["id"].dump() + "}");
    server.Receive();  // and never answer
  });
  QmpClient c = QmpClient::Handshake(LineChannel(UniqueFd(sv[0]), "fake qmp"),
                                     Clock::now() + 5s);
  try {
    c.Execute("query-status", {}, 300ms);
    FAIL();
  } catch (const QmpConnectionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no reply to query-status from fake qmp in time"));
  }
  script.join();
}

// An event before the greeting is kept (QEMU 7.2 sent RESUME first to a client that
// connected as the machine started); a reply before it means the peer is not QEMU's
// monitor, named with what it sent.
TEST(QmpClientTest, EventsBeforeTheGreetingAreKeptAndAReplyIsNamed) {
  {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    FakeQmpServer server(sv[1]);
    server.Send(R"({"timestamp": {"seconds": 1, "microseconds": 2}, "event": "RESUME"})");
    server.Send(kGreeting);
    std::thread script([&] {
      json caps = server.Receive();
      server.Send(R"({"return": {}, "id": )" + caps["id"].dump() + "}");
    });
    QmpClient c = QmpClient::Handshake(LineChannel(UniqueFd(sv[0]), "fake qmp"), Clock::now() + 5s);
    script.join();
    EXPECT_EQ(c.QemuVersion(), "7.2.22");
    ASSERT_EQ(c.Events().size(), 1u);
    EXPECT_EQ(c.Events()[0].event, "RESUME");
  }
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  FakeQmpServer server(sv[1]);
  server.Send(R"({"return": {"pong": true}})");
  try {
    QmpClient::Handshake(LineChannel(UniqueFd(sv[0]), "fake qmp"), Clock::now() + 5s);
    FAIL();
  } catch (const QmpConnectionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("QMP did not start with a greeting on fake qmp (first came "
                                    "a reply: {\"pong\":true})"));
  }
}

// Against the real QEMU of this machine, with no guest at all.
TEST(QmpClientTest, RealQemu) {
  // A fresh directory: a pid-named one may be a failed earlier run's, reused.
  std::string tmpl = ::testing::TempDir() + "/qmp-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string dir = tmpl;
  std::string sock = dir + "/qmp.sock";
  ChildProcess qemu = ChildProcess::Start(
      {"qemu-system-x86_64", "-machine", "none", "-nodefaults", "-display", "none", "-qmp",
       "unix:" + sock + ",server=on,wait=off"},
      dir + "/qemu.log");
  auto alive = [&] {
    if (!qemu.Running()) throw std::runtime_error("qemu " + qemu.ExitDescription());
  };
  QmpClient c = QmpClient::Connect(sock, Clock::now() + 10s, alive);
  EXPECT_THAT(c.QemuVersion(), ::testing::StartsWith("7."));
  json v = c.Execute("query-version");
  EXPECT_TRUE(v["qemu"].contains("major"));
  json s = c.Execute("query-status");
  EXPECT_TRUE(s.contains("status"));
  try {
    c.Execute("storbed-no-such-command");
    FAIL();
  } catch (const QmpError& e) {
    EXPECT_EQ(e.error_class(), "CommandNotFound");
    EXPECT_EQ(e.command(), "storbed-no-such-command");
    EXPECT_THAT(e.desc(), HasSubstr("storbed-no-such-command"));
  }
  c.Execute("quit");
  EXPECT_TRUE(qemu.WaitFor(5s)) << "qemu did not exit after quit";
  EXPECT_EQ(qemu.ExitDescription(), "exited with status 0");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace storbed

#include "libvirt/monitor_reply.h"

#include <gtest/gtest.h>

#include "backend/qmp_client.h"

namespace storbed {
namespace {

TEST(MonitorReplyTest, CommandTextHasArgumentsOnlyWhenGiven) {
  EXPECT_EQ(MonitorCommandText("query-status", nlohmann::json::object()),
            R"({"execute":"query-status"})");
  EXPECT_EQ(nlohmann::json::parse(MonitorCommandText("qom-list", {{"path", "/machine"}})),
            nlohmann::json({{"execute", "qom-list"}, {"arguments", {{"path", "/machine"}}}}));
}

TEST(MonitorReplyTest, ReturnValueIsReturned) {
  EXPECT_EQ(ParseMonitorReply("query-status",
                              R"({"return":{"status":"running","running":true},"id":"libvirt-21"})"),
            nlohmann::json({{"status", "running"}, {"running", true}}));
}

TEST(MonitorReplyTest, ErrorReplyIsQmpErrorWithClassAndDesc) {
  try {
    ParseMonitorReply("x-nope",
                      R"({"id":"libvirt-22","error":{"class":"CommandNotFound","desc":"The command x-nope has not been found"}})");
    FAIL();
  } catch (const QmpError& e) {
    EXPECT_EQ(e.command(), "x-nope");
    EXPECT_EQ(e.error_class(), "CommandNotFound");
    EXPECT_EQ(e.desc(), "The command x-nope has not been found");
  }
}

TEST(MonitorReplyTest, GarbageIsAProtocolErrorKeepingTheText) {
  try {
    ParseMonitorReply("query-status", "not json");
    FAIL();
  } catch (const QmpProtocolError& e) {
    EXPECT_EQ(e.raw(), "not json");
  }
  EXPECT_THROW(ParseMonitorReply("q", R"({"id":"x"})"), QmpProtocolError);
}

TEST(MonitorReplyTest, FrontendOpenIsReadFromTheChardevWithThatLabel) {
  // What QEMU 7.2 under libvirt 9.0 listed for a foreign domain here, qemu-ga's port open.
  const nlohmann::json chardevs = nlohmann::json::parse(R"([
    {"frontend-open": true,
     "filename": "unix:/var/lib/libvirt/qemu/channel/target/domain-2-x/org.qemu.guest_agent.0,server=on",
     "label": "charchannel1"},
    {"frontend-open": true, "filename": "file", "label": "charserial0"},
    {"frontend-open": false,
     "filename": "disconnected:unix:/var/lib/libvirt/qemu/channel/target/domain-2-x/org.storbed.agent.0,server=on",
     "label": "charua-agent"},
    {"frontend-open": true, "filename": "unix:/var/lib/libvirt/qemu/domain-2-x/monitor.sock,server=on",
     "label": "charmonitor"}])");
  EXPECT_FALSE(ChardevFrontendOpen(chardevs, "charua-agent"));
  EXPECT_TRUE(ChardevFrontendOpen(chardevs, "charchannel1"));
  EXPECT_THROW(ChardevFrontendOpen(chardevs, "charchannel9"), QmpProtocolError);
  EXPECT_THROW(ChardevFrontendOpen(nlohmann::json::parse(R"([{"label": "charua-agent"}])"),
                                   "charua-agent"),
               QmpProtocolError);
  EXPECT_THROW(ChardevFrontendOpen(nlohmann::json::object(), "charua-agent"), QmpProtocolError);
}

}  // namespace
}  // namespace storbed

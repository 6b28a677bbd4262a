#include "libvirt/libvirt_qga.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(LibvirtQgaTest, ReturnValueIsTheReply) {
  EXPECT_EQ(ParseAgentReply("guest-info", R"({"return":{"version":"7.2.22"}})")["version"],
            "7.2.22");
  EXPECT_EQ(ParseAgentReply("guest-ping", R"({"return":{}})"), nlohmann::json::object());
}

TEST(LibvirtQgaTest, ErrorReplyIsACommandErrorWithClassAndDesc) {
  try {
    ParseAgentReply("guest-file-open",
                    R"({"error":{"class":"GenericError","desc":"open: Permission denied"}})");
    FAIL() << "no exception";
  } catch (const QgaCommandError& e) {
    EXPECT_EQ(e.error_class(), "GenericError");
    EXPECT_NE(std::string(e.what()).find("guest-file-open"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Permission denied"), std::string::npos) << e.what();
  }
}

TEST(LibvirtQgaTest, GarbageIsAQgaErrorNotACommandError) {
  for (const char* bad : {"", "not json", "[1]", R"({"foo":1})", R"({"error":"x"})"}) {
    SCOPED_TRACE(bad);
    try {
      ParseAgentReply("guest-info", bad);
      FAIL() << "no exception";
    } catch (const QgaCommandError&) {
      FAIL() << "a malformed reply is no refusal";
    } catch (const QgaError& e) {
      EXPECT_NE(std::string(e.what()).find("guest-info"), std::string::npos) << e.what();
    }
  }
}

TEST(LibvirtQgaTest, RefusalIsFoundInLibvirtsMessageForThatCommandOnly) {
  // Word for word what libvirt 9.0 said here for a guest-exec in Debian 12's noexec /run.
  const std::string msg =
      "internal error: unable to execute QEMU agent command 'guest-exec': Guest agent "
      "command failed, error was 'Failed to execute child process \u201c/run/lvfx\u201d "
      "(Permission denied)'";
  ASSERT_TRUE(AgentRefusalIn("guest-exec", msg));
  EXPECT_EQ(AgentRefusalIn("guest-exec", msg)->rfind("Guest agent command failed", 0), 0u);
  EXPECT_NE(AgentRefusalIn("guest-exec", msg)->find("Permission denied"), std::string::npos);
  EXPECT_FALSE(AgentRefusalIn("guest-file-open", msg));
  EXPECT_FALSE(AgentRefusalIn("guest-ping",
                              "Guest agent is not responding: QEMU guest agent is not connected"));
}

TEST(LibvirtQgaTest, LargeFileWriteIsCutIntoBase64PiecesThatJoinToTheWhole) {
  const std::string b64(1336, 'A');  // any multiple of 4
  const nlohmann::json args = {{"handle", 1000}, {"buf-b64", b64}, {"count", 1000}};
  const auto pieces = SplitFileWrite(args, 130);  // rounded down to 128
  ASSERT_EQ(pieces.size(), 11u);  // 10 x 128 + 56
  std::string joined;
  for (const auto& p : pieces) {
    EXPECT_EQ(p["handle"], 1000);
    EXPECT_FALSE(p.contains("count"));
    const std::string piece = p["buf-b64"];
    EXPECT_EQ(piece.size() % 4, 0u);
    EXPECT_LE(piece.size(), 128u);
    joined += piece;
  }
  EXPECT_EQ(joined, b64);
}

TEST(LibvirtQgaTest, SmallFileWriteAndOtherCommandsStayWhole) {
  const nlohmann::json args = {{"handle", 7}, {"buf-b64", "QUJD"}};
  ASSERT_EQ(SplitFileWrite(args, kMaxAgentWriteBase64).size(), 1u);
  EXPECT_EQ(SplitFileWrite(args, kMaxAgentWriteBase64)[0], args);
  const nlohmann::json open = {{"path", "/var/tmp/x"}, {"mode", "w"}};
  EXPECT_EQ(SplitFileWrite(open, 4)[0], open);
}

TEST(LibvirtQgaTest, RefusalOfAFileOpenKeepsQemuGasDescription) {
  // Word for word from libvirt 9.0 here.
  EXPECT_EQ(AgentRefusalIn("guest-file-open",
                           "internal error: unable to execute QEMU agent command "
                           "'guest-file-open': failed to open file '/nonexistent/x' (mode: "
                           "'w'): No such file or directory"),
            "failed to open file '/nonexistent/x' (mode: 'w'): No such file or directory");
}

}  // namespace
}  // namespace storbed

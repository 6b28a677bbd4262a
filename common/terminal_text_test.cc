#include "terminal_text.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(TerminalTextTest, EscapeSequencesAreWrittenOutAndNewlinesAndTabsKept) {
  EXPECT_EQ(EscapeControlChars("job\x1b]0;owned\x07 a\tb\n"), "job\\x1b]0;owned\\x07 a\tb\n");
  EXPECT_EQ(EscapeControlChars("\r\x1b[2Kfake line"), "\\x0d\\x1b[2Kfake line");
  EXPECT_EQ(EscapeControlChars(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(EscapeControlChars("del\x7f"), "del\\x7f");
}

// U+009B is CSI to terminals that take C1 controls; "é" (C3 A9) and "€" (E2 82 AC, whose
// continuation byte 0x82 lies in the C1 range) are text.
TEST(TerminalTextTest, C1ControlsAreEscapedAndOtherUtf8IsLeftAlone) {
  EXPECT_EQ(EscapeControlChars("x\xc2\x9b"
                               "2Jy"),
            "x\\u009b2Jy");
  EXPECT_EQ(EscapeControlChars("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(EscapeControlChars("plain"), "plain");
}

}  // namespace
}  // namespace storbed

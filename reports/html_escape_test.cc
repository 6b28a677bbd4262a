#include "reports/html_escape.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(HtmlEscapeTest, MarkupCharactersBecomeEntities) {
  EXPECT_EQ(EscapeHtml("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
}

TEST(HtmlEscapeTest, PlainTextAndUtf8PassUnchanged) {
  EXPECT_EQ(EscapeHtml("virtio-blk rand-read disk.aio=native"),
            "virtio-blk rand-read disk.aio=native");
  EXPECT_EQ(EscapeHtml("/var/tmp/øre µs"), "/var/tmp/øre µs");
  EXPECT_EQ(EscapeHtml(""), "");
}

// An entity already in the text is text, not markup: it is escaped again.
TEST(HtmlEscapeTest, AnAmpersandIsAlwaysEscapedSoEntitiesInInputStayLiteral) {
  EXPECT_EQ(EscapeHtml("&lt;"), "&amp;lt;");
}

TEST(HtmlEscapeTest, ControlCharactersThatMarkupCannotCarryAreReplaced) {
  EXPECT_EQ(EscapeHtml(std::string("a\x01"
                                   "b\tc\nd\x7f",
                                   8)),
            "a\xEF\xBF\xBD"
            "b\tc\nd\xEF\xBF\xBD");
  EXPECT_EQ(EscapeHtml(std::string("nul\0end", 7)),
            "nul\xEF\xBF\xBD"
            "end");
}

}  // namespace
}  // namespace storbed

#include "xml_escape.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(XmlEscapeTest, MarkupAndQuotesBecomeEntitiesAndControlCharactersCannotBreakTheXml) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(XmlEscape(std::string("a\x01" "b\tc\n")), "a\xEF\xBF\xBD" "b\tc\n");
}

}  // namespace
}  // namespace storbed

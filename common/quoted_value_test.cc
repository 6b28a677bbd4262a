#include "quoted_value.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace storbed {
namespace {

TEST(QuoteValueTest, AShortValueIsQuotedWhole) { EXPECT_EQ(QuoteValue("4q"), "\"4q\""); }

TEST(QuoteValueTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(QuoteValue("a\x1b[2Jb"), "\"a\\u001b[2Jb\"");
}

// Issue 38: a message built through c_str() ended at the NUL and hid the rest.
TEST(QuoteValueTest, ANulByteNeitherEndsNorHidesTheValue) {
  EXPECT_EQ(QuoteValue(std::string("ab\0cd", 5)), "\"ab\\u0000cd\"");
}

// Issue 38: a 5 MB value was echoed whole.
TEST(QuoteValueTest, AFiveMegabyteValueIsCutToAPrefix) {
  const std::string quoted = QuoteValue(std::string(5 << 20, 'x'));
  EXPECT_EQ(quoted, "\"" + std::string(kMaxQuotedBytes, 'x') + "\"... (5242880 bytes)");
}

TEST(QuoteValueTest, TheCutFallsOnACharacterBoundary) {
  // One byte short of the bound and a 2-byte é: the é does not fit, and is not split.
  const std::string value = std::string(kMaxQuotedBytes - 1, 'a') + "\xc3\xa9" + "zz";
  EXPECT_EQ(QuoteValue(value), "\"" + std::string(kMaxQuotedBytes - 1, 'a') + "\"... (" +
                                   std::to_string(value.size()) + " bytes)");
}

TEST(QuoteValueTest, NonAsciiIsWrittenAsEscapes) {
  EXPECT_EQ(QuoteValue("caf\xc3\xa9"), "\"caf\\u00e9\"");
  EXPECT_EQ(QuoteValue("a\xff"), "\"a\\ufffd\"");
}

TEST(QuoteValueTest, AHugeListIsCutLikeAString) {
  const nlohmann::json list(std::vector<int>(1000000, 7));
  const std::string quoted = QuoteJson(list);
  EXPECT_EQ(quoted.substr(0, 5), "[7,7,");
  EXPECT_EQ(quoted.substr(kMaxQuotedBytes), "... (2000001 bytes)");
  EXPECT_EQ(QuoteJson(nlohmann::json(5)), "5");
}

}  // namespace
}  // namespace storbed

#include "strict_json.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace storbed {
namespace {

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonDepthTest, CountsArraysAndObjectsAndSkipsBracketsInStrings) {
  EXPECT_EQ(JsonDepthProblem(R"({"a": [1, {"b": []}]})", 4), "");
  EXPECT_EQ(JsonDepthProblem(R"({"a": [1, {"b": []}]})", 3),
            "arrays and objects nest deeper than 3 levels (at byte 17)");
  // Brackets and an escaped quote inside strings are text, not nesting.
  EXPECT_EQ(JsonDepthProblem(R"(["[[[[", "\"[[[", "{{{"])", 1), "");
  EXPECT_EQ(JsonDepthProblem(Nested(kMaxJsonDepth)), "");
  EXPECT_NE(JsonDepthProblem(Nested(kMaxJsonDepth + 1)), "");
}

// Before the bound a 130k-deep document (260 KB) crashed compare, report and history import
// with SIGSEGV: nlohmann recurses once per level. Now it is refused before it is parsed.
TEST(JsonDepthTest, AHundredThousandDeepDocumentIsRefusedQuicklyByEveryParser) {
  const std::string deep = Nested(100000);
  const auto start = std::chrono::steady_clock::now();
  try {
    ParseJson(deep);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "arrays and objects nest deeper than 64 levels (at byte 65)");
  }
  EXPECT_TRUE(ParseJsonOrDiscarded(deep).is_discarded());
  try {
    ParseJsonNoDuplicateKeys(deep);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "not valid JSON: arrays and objects nest deeper than 64 levels (at byte 65)");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(JsonDepthTest, ADocumentWithinTheBoundParsesAsBefore) {
  EXPECT_EQ(ParseJson(R"({"a": [1, 2]})")["a"][1], 2);
  EXPECT_TRUE(ParseJsonOrDiscarded("{").is_discarded());
  EXPECT_THROW(ParseJson("{"), nlohmann::json::parse_error);
}

// Found by protocol_fuzz: get<uint64_t> of 1.23e106 is a cast undefined out of range.
TEST(WholeNumberTest, OnlyAJsonIntegerInRangeIsAWholeNumber) {
  EXPECT_EQ(WholeNumber<uint64_t>(nlohmann::json(18446744073709551615ull)),
            18446744073709551615ull);
  EXPECT_EQ(WholeNumber<int64_t>(nlohmann::json(-5)), -5);
  EXPECT_EQ(WholeNumber<uint32_t>(nlohmann::json(7)), 7u);
  for (const char* bad : {"1.23e106", "-5.5", "3.0", "-1", "4294967296", "null", "\"7\""}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(WholeNumber<uint32_t>(nlohmann::json::parse(bad)), std::invalid_argument);
  }
  try {
    WholeNumber<uint32_t>(nlohmann::json::parse("1.23e106"));
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "expected a whole number from 0 to 4294967295, got 1.23e+106");
  }
  EXPECT_THROW(WholeNumber<uint64_t>(nlohmann::json(-1)), std::invalid_argument);
}

}  // namespace
}  // namespace storbed

#include "cli/parse_messages.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(ParseMessagesTest, AConversionNamesTheOptionAndTheValue) {
  EXPECT_EQ(ConversionMessage("Could not convert: --noise = lots"),
            "--noise: \"lots\" is not a number");
  EXPECT_EQ(ConversionMessage("Could not convert: --min-change = 5 %"),
            "--min-change: \"5 %\" is not a number");
}

TEST(ParseMessagesTest, OtherTextIsKept) {
  EXPECT_EQ(ConversionMessage("The following argument was not expected: x"),
            "The following argument was not expected: x");
}

}  // namespace
}  // namespace storbed

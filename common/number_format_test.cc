#include "number_format.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(NumberFormatTest, FormatsOneDoubleAsPrintfWould) {
  EXPECT_EQ(FormatDouble(3.14159, "%.2f"), "3.14");
  EXPECT_EQ(FormatDouble(1234567, "%.4g"), "1.235e+06");
  EXPECT_EQ(FormatDouble(2.5, "%6.1f"), "   2.5");
  EXPECT_EQ(FormatFixed(2.675, 0), "3");
  EXPECT_EQ(FormatFixed(-0.125, 2), "-0.12");  // printf rounds the binary value, half to even here
}

// A value wider than the buffer is cut, not written past it.
TEST(NumberFormatTest, AHugeValueIsCutToTheBufferNotOverflowingIt) {
  const std::string s = FormatFixed(1e300, 2);
  EXPECT_EQ(s.size(), 63u);
  EXPECT_EQ(s.substr(0, 2), "10");
}

}  // namespace
}  // namespace storbed

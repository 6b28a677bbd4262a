#include "median.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace storbed {
namespace median_test {  // named, not anonymous: a unity build joins files

TEST(Median, OddCountsTakeTheMiddleAndEvenOnesTheMeanOfTheTwoMiddle) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({7}), 7);
  EXPECT_THROW(Median({}), std::invalid_argument);
}

}  // namespace median_test
}  // namespace storbed

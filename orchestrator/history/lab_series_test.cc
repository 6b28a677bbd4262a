#include "history/lab_series.h"

#include <gtest/gtest.h>

namespace storbed {
namespace lab_series_test {  // named, not anonymous: a unity build joins files

HistoryNight NightOf(std::vector<double> values) {
  HistoryNight n;
  n.values = std::move(values);
  return n;
}

TEST(ValuesByNight, PutsEachNightOnItsAxisNightAndLeavesMissedNightsEmpty) {
  HostSeries host;
  // The host ran axis nights 0, 2 and 2 again (two sessions on one date), and missed 1 and 3.
  host.series.nights = {NightOf({1, 2}), NightOf({3}), NightOf({4, 5})};
  host.axis = {0, 2, 2};
  const std::vector<std::vector<double>> by_night = ValuesByNight(host, 4);
  ASSERT_EQ(by_night.size(), 4u);
  EXPECT_EQ(by_night[0], (std::vector<double>{1, 2}));
  EXPECT_TRUE(by_night[1].empty());
  EXPECT_EQ(by_night[2], (std::vector<double>{3, 4, 5}));
  EXPECT_TRUE(by_night[3].empty());
}

TEST(ValuesByNight, ANightBeyondTheAxisIsAnError) {
  HostSeries host;
  host.series.nights = {NightOf({1})};
  host.axis = {5};
  EXPECT_THROW(ValuesByNight(host, 3), std::out_of_range);
}

}  // namespace lab_series_test
}  // namespace storbed

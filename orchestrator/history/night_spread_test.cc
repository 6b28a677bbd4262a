#include "history/night_spread.h"

#include <gtest/gtest.h>

#include "reports/compare.h"

namespace storbed {
namespace {

// One night of bare-metal job r: its runs at these IOPS.
std::vector<RunRecord> Night(const std::vector<double>& iops) {
  std::vector<RunRecord> out;
  for (size_t i = 0; i < iops.size(); ++i) {
    RunRecord r;
    r.run_id = "00" + std::to_string(i + 1) + "-bare-metal-r";
    r.target = "bare-metal";
    r.job.name = "r";
    r.params = {{"repeat", i + 1}, {"warmup", false}};
    JobResult res;
    res.iops = iops[i];
    r.result = res;
    out.push_back(r);
  }
  return out;
}

TEST(NightToNightNoise, IsTwoDeviationsOfTheNightsMediansForOneMoreNight) {
  // Night medians 100, 102, 98: mean 100, s 2; x 2 x sqrt(4/3).
  const auto noise =
      NightToNightNoise({Night({99, 100, 101}), Night({101, 102, 103}), Night({97, 98, 99})});
  const std::string key = NoiseKey("bare-metal r", "iops");
  ASSERT_EQ(noise.count(key), 1u);
  EXPECT_NEAR(noise.at(key), 2 * 2 * std::sqrt(4.0 / 3) / 100, 1e-9);
  EXPECT_EQ(noise.count(NoiseKey("bare-metal r", "req_kib")), 0u) << "no direction: not judged";
}

TEST(NightToNightNoise, NeedsTwoNights) {
  EXPECT_TRUE(NightToNightNoise({Night({99, 100, 101})}).empty());
  EXPECT_TRUE(NightToNightNoise({}).empty());
}

TEST(NightToNightNoise, SteadyNightsKeepItNarrow) {
  std::vector<std::vector<RunRecord>> nights;
  for (int i = 0; i < 7; ++i) nights.push_back(Night({1000, 1001, 999}));
  const auto noise = NightToNightNoise(nights);
  EXPECT_NEAR(noise.at(NoiseKey("bare-metal r", "iops")), 0, 1e-12);
}

}  // namespace
}  // namespace storbed

#include "reports/ladders.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

RunRecord WithLadder(const std::string& id, const std::string& target, const std::string& job) {
  RunRecord r;
  r.run_id = id;
  r.target = target;
  r.job.name = job;
  r.ladder = Ladder{};
  return r;
}

// Guests first, each with the first bare-metal run of its job; then the bare-metal runs no
// guest took; warm-ups and runs without a ladder nowhere.
TEST(PairLaddersTest, EachGuestGetsItsJobsBareMetalTwinAndTheRestStandAlone) {
  std::vector<RunRecord> runs = {WithLadder("001-bare-metal-r", "bare-metal", "r"),
                                 WithLadder("002-virtio-blk-r", "virtio-blk", "r"),
                                 WithLadder("003-nvme-r", "nvme", "r"),
                                 WithLadder("004-bare-metal-w", "bare-metal", "w"),
                                 WithLadder("005-nvme-w", "nvme", "w"),
                                 WithLadder("006-bare-metal-s", "bare-metal", "s"),
                                 WithLadder("007-nvme-x", "nvme", "x")};
  runs.push_back(WithLadder("008-nvme-r-warm", "nvme", "r"));
  runs.back().status = RunStatus::Warmup;
  runs.push_back(WithLadder("009-nvme-r-failed", "nvme", "r"));
  runs.back().ladder.reset();
  const auto pairs = PairLadders(runs);
  std::vector<std::pair<std::string, std::string>> got;
  for (const LadderPair& p : pairs)
    got.emplace_back(p.run->run_id, p.bare_metal_twin ? p.bare_metal_twin->run_id : "");
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"002-virtio-blk-r", "001-bare-metal-r"},
                     {"003-nvme-r", "001-bare-metal-r"},
                     {"005-nvme-w", "004-bare-metal-w"},
                     {"007-nvme-x", ""},
                     {"006-bare-metal-s", ""}}));
}

}  // namespace
}  // namespace storbed

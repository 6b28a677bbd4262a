#include "reports/ladders.h"

#include <gtest/gtest.h>

#include <map>

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

RunRecord Repeat(RunRecord r, int repeat, nlohmann::json params = nlohmann::json::object()) {
  r.params = std::move(params);
  r.params["repeat"] = repeat;
  r.params["warmup"] = false;
  return r;
}

// Guests first, each with the bare-metal run of its job and repeat; then the bare-metal
// runs no guest took; warm-ups and runs without a ladder nowhere.
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

// Regression (issue 16): every guest repeat was laid beside bare-metal repeat 1.
TEST(PairLaddersTest, GuestRepeatKSitsBesideBareMetalRepeatKOfTheSameCell) {
  const nlohmann::json small = {{"disk.size", "64M"}}, big = {{"disk.size", "1G"}};
  nlohmann::json guest_small = small;
  guest_small["disk.aio"] = "native";
  std::vector<RunRecord> runs = {
      Repeat(WithLadder("001-bare-metal-w-r1", "bare-metal", "w"), 1, small),
      Repeat(WithLadder("002-bare-metal-w-r2", "bare-metal", "w"), 2, small),
      Repeat(WithLadder("003-bare-metal-w-r1", "bare-metal", "w"), 1, big),
      Repeat(WithLadder("004-virtio-blk-w-r2", "virtio-blk", "w"), 2, guest_small),
      Repeat(WithLadder("005-virtio-blk-w-r1", "virtio-blk", "w"), 1, guest_small),
      Repeat(WithLadder("006-virtio-blk-w-r3", "virtio-blk", "w"), 3, guest_small)};
  std::map<std::string, std::string> twin;
  for (const LadderPair& p : PairLadders(runs))
    twin[p.run->run_id] = p.bare_metal_twin ? p.bare_metal_twin->run_id : "";
  EXPECT_EQ(twin["004-virtio-blk-w-r2"], "002-bare-metal-w-r2");
  EXPECT_EQ(twin["005-virtio-blk-w-r1"], "001-bare-metal-w-r1");
  EXPECT_EQ(twin["006-virtio-blk-w-r3"], "");  // no bare-metal repeat 3: none, not repeat 1
  EXPECT_EQ(twin["003-bare-metal-w-r1"], "");  // another backing's cell
}

TEST(PairLaddersTest, RepeatedCellsCollectTheirRepeatsAndRenderAMedianBlock) {
  std::vector<RunRecord> runs = {Repeat(WithLadder("001-nvme-w-r1", "nvme", "w"), 1),
                                 Repeat(WithLadder("002-nvme-w-r2", "nvme", "w"), 2),
                                 Repeat(WithLadder("003-nvme-x-r1", "nvme", "x"), 1)};
  const std::vector<RepeatedCell> cells = RepeatedLadderCells(runs);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].cell, "nvme w");
  ASSERT_EQ(cells[0].runs.size(), 2u);
  EXPECT_NE(RenderLadders(runs).find("median over 2 repeats: nvme w\n"), std::string::npos);
}

}  // namespace
}  // namespace storbed

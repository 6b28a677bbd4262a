// The bare-metal twin for real: the static agent, --standalone, on a loop device over a
// data-filled file, as `storbed run` does it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "execute/backing.h"
#include "execute/bare_metal_target.h"
#include "execute/loop_device.h"
#include "test_env.h"

namespace storbed {
namespace bare_metal_test {  // named, not anonymous: a unity build joins files

TEST(BareMetalTest, StandaloneAgentOnALoopDeviceReportsHostDeviceStats) {
  const std::string dir = testing::ScratchDir("bare-metal");
  const Backing backing = CreateFilledBacking(dir + "/backing.raw", 16 << 20);
  std::string loop_name;
  {
    LoopDevice loop = LoopDevice::Attach(backing.path, /*direct_io=*/true);
    loop_name = std::filesystem::path(loop.path()).filename();
    JobSpec job;
    job.name = "rand";
    job.target = loop.path();
    job.pattern = Pattern::Random;
    job.engine = Engine::IoUring;
    job.iodepth = 8;
    job.bs = 4096;
    job.io_limit = 4 << 20;
    const JobResult r = RunStandaloneAgent(testing::AgentPath(), job, dir,
                                           "agent-" + job.name + ".log", std::chrono::seconds(120));
    EXPECT_EQ(r.bytes, 4u << 20);
    EXPECT_EQ(r.ios, 1024u);
    EXPECT_GT(r.iops, 0);
    ASSERT_TRUE(r.block.available) << r.block.reason;
    EXPECT_EQ(r.block.device, loop_name);
    EXPECT_EQ(r.block.layer, "host device");
    EXPECT_GE(r.block.read_bytes, 4u << 20);
    EXPECT_GT(r.block.avg_queue_depth, 0.5);
    // One page per buffer: one piece each, as root reads them from its pagemap.
    EXPECT_EQ(r.buffer_pieces.buffers, 8u);
    EXPECT_EQ(r.buffer_pieces.max_pieces, 1u);
    EXPECT_EQ(r.buffer_pieces.over_max_segments, 0u);
    EXPECT_GT(r.buffer_pieces.max_segments, 0u);
  }
  // Detached: the loop device no longer has a backing file.
  EXPECT_FALSE(std::filesystem::exists("/sys/block/" + loop_name + "/loop/backing_file"));
  std::filesystem::remove_all(dir);
}

// Two disk sizes are two backings: each gets its own loop device and manifest entry.
TEST(BareMetalTest, EveryBackingHasItsOwnManifestEntry) {
  const std::string dir = testing::ScratchDir("bare-metal-units");
  const std::string scenario = dir + "/units.json";
  std::ofstream(scenario) << R"({"name": "units", "targets": ["bare-metal"],
      "disk": {"size": ["8m", "16m"]},
      "jobs": [{"name": "r", "ioengine": "io_uring", "iodepth": 4, "io_size": "1m"}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", scenario, "--out", dir + "/out", "--work-dir", dir}, dir + "/cli.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  const auto manifest = nlohmann::json::parse(testing::Slurp(dir + "/out/manifest.json"));
  ASSERT_EQ(manifest["bare_metal"].size(), 2u) << manifest.dump(2);
  std::set<std::string> runs;
  for (const auto& unit : manifest["bare_metal"]) {
    EXPECT_EQ(unit["loop_direct_io"], true);
    ASSERT_EQ(unit["runs"].size(), 1u);
    runs.insert(unit["runs"][0].get<std::string>());
  }
  EXPECT_EQ(runs.size(), 2u);
  // The host CPU sampler runs beside bare-metal jobs too: per-CPU shares over the IO
  // phase in the record, and its lines in the run's timelines file.
  const auto results = nlohmann::json::parse(testing::Slurp(dir + "/out/results.json"));
  ASSERT_EQ(results.size(), 2u);
  for (const auto& record : results) {
    const auto& all = record["host"]["host_cpu"]["all"];
    for (const char* metric : {"user", "system", "iowait", "irq", "softirq", "steal"}) {
      ASSERT_TRUE(all.contains(metric)) << metric << " in " << record["host"].dump();
      EXPECT_GE(all[metric].get<double>(), 0.0);
      EXPECT_LE(all[metric].get<double>(), 100.0);
    }
    const std::string timelines =
        testing::Slurp(dir + "/out/" + record["timelines_file"].get<std::string>());
    EXPECT_NE(timelines.find("\"host.cpu.user\""), std::string::npos);
    // Each run keeps its own agent log, though both runs are of job r: its result line
    // carries the run's IO count.
    const std::string log = testing::Slurp(dir + "/out/bare-metal/agent-" +
                                           record["run_id"].get<std::string>() + ".log");
    EXPECT_NE(log.find("\"ios\":" + std::to_string(record["result"]["ios"].get<uint64_t>())),
              std::string::npos)
        << log;
  }
  std::filesystem::remove_all(dir);
}

// huge_buffers for real: 1 MiB O_DIRECT reads of a loop device (128 segments of at most
// 64 KiB per request) from huge-page buffers reach the device whole, one request per IO.
// From 4 KiB pages (256 per IO) they arrive split unless the kernel happened to place the
// pages side by side (adjacent pages merge into one segment; a freshly populated buffer
// sometimes is contiguous), so that side is only held to no larger requests.
TEST(BareMetalTest, HugeBuffersReachTheDeviceWhole) {
  const std::string dir = testing::ScratchDir("bare-metal-huge");
  const Backing backing = CreateFilledBacking(dir + "/backing.raw", 16 << 20);
  {
    LoopDevice loop = LoopDevice::Attach(backing.path, /*direct_io=*/true);
    const std::string queue =
        "/sys/block/" + std::filesystem::path(loop.path()).filename().string() + "/queue/";
    ASSERT_GE(std::stoull(testing::Slurp(queue + "max_sectors_kb")), 1024u)
        << "the test wants 1 MiB requests to fit: " << queue;
    JobSpec job;
    job.name = "seq";
    job.target = loop.path();
    job.engine = Engine::IoUring;
    job.iodepth = 4;
    job.bs = 1 << 20;
    job.io_limit = 16 << 20;
    const auto run = [&] {
      return RunStandaloneAgent(testing::AgentPath(), job, dir, "agent-" + job.name + ".log",
                                std::chrono::seconds(120));
    };
    const JobResult small = run();
    job.huge_buffers = true;
    const JobResult huge = run();
    EXPECT_EQ(small.huge_buffer_bytes, 0u);
    EXPECT_EQ(small.buffer_bytes_mapped, 0u);
    EXPECT_EQ(huge.buffer_bytes_mapped, 4u << 20);
    ASSERT_TRUE(small.block.available && huge.block.available) << small.block.reason;
    EXPECT_EQ(small.block.read_bytes, 16u << 20);
    EXPECT_EQ(huge.block.read_bytes, 16u << 20);
    // The agent's own account of its buffers agrees with what the device received: every
    // buffer over max_segments means every IO split, none means none did.
    const BufferPieces& pieces = small.buffer_pieces;
    ASSERT_EQ(pieces.buffers, 4u);
    EXPECT_EQ(pieces.max_segments, std::stoull(testing::Slurp(queue + "max_segments")));
    if (pieces.over_max_segments == pieces.buffers) {
      EXPECT_LT(small.block.avg_request_bytes, double(1 << 20));
    } else if (pieces.over_max_segments == 0) {
      EXPECT_GE(small.block.avg_request_bytes, double(1 << 20));
    }
    const bool said =
        std::any_of(small.warnings.begin(), small.warnings.end(),
                    [](const std::string& w) { return w.starts_with("IO buffers: "); });
    EXPECT_EQ(said, pieces.over_max_segments > 0);
    if (huge.huge_buffer_bytes < huge.buffer_bytes_mapped) {
      // THP off here: said, and nothing else to compare.
      ASSERT_FALSE(huge.warnings.empty());
      EXPECT_NE(huge.warnings.back().find("huge_buffers: "), std::string::npos);
    } else {
      EXPECT_GE(huge.block.avg_request_bytes, double(1 << 20));
      EXPECT_LE(small.block.avg_request_bytes, huge.block.avg_request_bytes);
      EXPECT_EQ(huge.buffer_pieces.over_max_segments, 0u);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(BareMetalTest, StandaloneAgentErrorNamesTheTarget) {
  const std::string dir = testing::ScratchDir("bare-metal-error");
  JobSpec job;
  job.name = "missing";
  job.target = dir + "/does-not-exist";
  try {
    RunStandaloneAgent(testing::AgentPath(), job, dir, "agent-" + job.name + ".log",
                       std::chrono::seconds(60));
    FAIL() << "a missing target ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("does-not-exist"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace bare_metal_test
}  // namespace storbed

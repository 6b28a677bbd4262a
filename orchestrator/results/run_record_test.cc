#include "results/run_record.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// One record of a results.json written before schema 2 (no schema_version; the job
// with engine, io_limit, fsync_every, read_pct, runtime_s and nested tunables).
constexpr const char* kSchema1Record = R"({
  "run_id": "001-virtio-blk-mix", "target": "virtio-blk", "accel": "tcg",
  "machine": "m0", "device": "/dev/vdb", "backend": "qemu", "status": "ok",
  "error": "", "console_log": "", "wall_s": 3.5, "result": null, "ladder": null,
  "durability": null, "host": {}, "timelines_file": "", "params": {"job.bs": 8192},
  "job": {"name": "mix", "target": "/dev/vdb", "pattern": "random", "rw": "mixed",
          "engine": "io_uring", "bs": 8192, "iodepth": 8, "runtime_s": 1.5,
          "io_limit": 1048576, "fsync_every": 4, "read_pct": 60,
          "tunables": {"read_ahead_kb": 0, "scheduler": "", "nr_requests": -1,
                       "max_sectors_kb": -1}}})";

TEST(RunRecordTest, ReadsASchema1Record) {
  const RunRecord r = nlohmann::json::parse(kSchema1Record).get<RunRecord>();
  EXPECT_EQ(r.run_id, "001-virtio-blk-mix");
  EXPECT_EQ(r.job.engine, Engine::IoUring);
  EXPECT_DOUBLE_EQ(r.job.runtime_s, 1.5);
  EXPECT_EQ(r.job.io_limit, 1u << 20);
  EXPECT_EQ(r.job.fsync_every, 4u);
  EXPECT_EQ(r.job.read_pct, 60u);
  EXPECT_EQ(r.job.tunables.read_ahead_kb, 0);
}

TEST(RunRecordTest, WritesSchema2WithTheScenarioNames) {
  RunRecord r = nlohmann::json::parse(kSchema1Record).get<RunRecord>();
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("schema_version"), kResultsSchemaVersion);
  EXPECT_EQ(j.at("job").at("ioengine"), "io_uring");
  EXPECT_EQ(j.at("job").at("io_size"), 1u << 20);
  EXPECT_FALSE(j.at("job").contains("engine"));
  EXPECT_TRUE(j.get<RunRecord>().job == r.job);
}

}  // namespace
}  // namespace storbed

#include "job_fields.h"

#include <gtest/gtest.h>

#include <set>

#include "engine_table.h"

#include "member_count_for_test.h"

namespace storbed {
namespace {

using nlohmann::json;

using testing::MemberCount;

bool InTunables(size_t offset) {
  const size_t begin = OffsetOf(&JobSpec::tunables);
  return offset >= begin && offset < begin + sizeof(BlockTunables);
}

TEST(JobFieldsTest, EveryMemberHasExactlyOneRow) {
  std::set<size_t> offsets;
  size_t top = 0, nested = 0;
  for (const auto& row : JobRows()) {
    EXPECT_TRUE(offsets.insert(row.offset).second) << row.spec.name << " shares a member";
    (InTunables(row.offset) ? nested : top) += 1;
  }
  // `tunables` is the one member reached through the rows of its own members.
  EXPECT_EQ(top + 1, MemberCount<JobSpec>());
  EXPECT_EQ(nested, MemberCount<BlockTunables>());
}

TEST(JobFieldsTest, NamesAreUniqueAndTheScenarios) {
  std::set<std::string> names;
  for (const auto& row : JobRows()) EXPECT_TRUE(names.insert(row.spec.name).second);
  EXPECT_EQ(JobRow(&JobSpec::engine).spec.name, "ioengine");
  EXPECT_EQ(JobRow(&JobSpec::io_limit).spec.name, "io_size");
  EXPECT_EQ(JobRow(&JobSpec::fsync_every).spec.name, "fsync");
  EXPECT_EQ(JobRow(&JobSpec::read_pct).spec.name, "rwmixread");
  EXPECT_EQ(JobRow(&JobSpec::runtime_s).spec.name, "runtime");
}

TEST(JobFieldsTest, EnumRowsTakeTheirValuesFromTheEnumsNameTable) {
  EXPECT_EQ(JobRow(&JobSpec::pattern).spec.allowed,
            (std::vector<std::string>{"sequential", "random", "gappy", "strided"}));
  EXPECT_EQ(JobRow(&JobSpec::engine).spec.allowed, EngineNames());
  EXPECT_EQ(JobRow(&JobSpec::engine).spec.allowed.size(), size_t(kLastEngine) + 1);
  EXPECT_EQ(JobRow(&JobSpec::madvise).spec.allowed, EnumNames<AccessHint>());
}

// A value of the row's type that differs from `v` and that CheckJob accepts.
json Other(const FieldSpec& f, const json& v) {
  switch (f.type) {
    case FieldType::Integer:
      return v.get<int64_t>() + 1 <= f.max ? v.get<int64_t>() + 1 : v.get<int64_t>() - 1;
    case FieldType::Size:
      return v.get<uint64_t>() + 512;
    case FieldType::Number:
      return (v.get<double>() + f.max) / 2;
    case FieldType::Bool:
      return !v.get<bool>();
    case FieldType::String:
      return v.get<std::string>() + "x";
    case FieldType::Enum: {
      const auto& a = f.allowed;
      const auto it = std::find(a.begin(), a.end(), v.get<std::string>());
      return a[(it - a.begin() + 1) % a.size()];
    }
    default:
      ADD_FAILURE() << f.name << ": no job field has this type";
      return v;
  }
}

TEST(JobFieldsTest, EveryRowRoundTripsAndSetsOnlyItsMember) {
  JobSpec base;
  base.name = "rt";
  base.target = "/dev/vdb";
  base.pattern = Pattern::Random;  // so random_run may change too
  for (const auto& row : JobRows()) {
    SCOPED_TRACE(row.spec.name);
    JobSpec changed = base;
    row.set(changed, Other(row.spec, row.get(base)));
    EXPECT_FALSE(changed == base);
    for (const auto& other : JobRows()) {
      if (&other == &row) continue;
      EXPECT_EQ(other.get(changed), other.get(base)) << other.spec.name;
    }
    const json j = changed;
    EXPECT_EQ(j.at("schema_version"), kJobSchemaVersion);
    EXPECT_EQ(j.at(row.spec.name), row.get(changed));
    EXPECT_TRUE(j.get<JobSpec>() == changed);
  }
}

// A run request as orchestrators before schema 2 wrote it (results.json kept it so).
constexpr const char* kSchema1Job = R"({
  "name": "old", "target": "/dev/vdb", "pattern": "random", "rw": "mixed",
  "engine": "libaio", "bs": 8192, "iodepth": 4, "reap": "poll", "numjobs": 2,
  "numjobs_split": true, "offset": 0, "size": 1048576, "runtime_s": 2.5,
  "io_limit": 4194304, "direct": true, "gappy_read": 1, "gappy_skip": 1, "seed": 7,
  "cache": "warm", "fsync_every": 16, "end_fsync": true, "inflight_sample_ms": 5,
  "stats_sample_ms": 50, "read_pct": 70, "stride_blocks": 3, "distribution": "zipf",
  "zipf_theta": 1.1, "hot_fraction": 0.2, "hot_pct": 80, "fadvise": "random",
  "madvise": "none", "mmap_window": 0, "verify": false, "cached_fraction": 0,
  "tunables": {"read_ahead_kb": 128, "scheduler": "none", "nr_requests": 64,
               "max_sectors_kb": -1},
  "filesystem": "", "fs_file": "storbed.dat"})";

TEST(JobFieldsTest, ReadsSchema1Names) {
  const JobSpec j = json::parse(kSchema1Job).get<JobSpec>();
  EXPECT_EQ(j.engine, Engine::Libaio);
  EXPECT_DOUBLE_EQ(j.runtime_s, 2.5);
  EXPECT_EQ(j.io_limit, 4u << 20);
  EXPECT_EQ(j.fsync_every, 16u);
  EXPECT_EQ(j.read_pct, 70u);
  EXPECT_EQ(j.stride_blocks, 3u);
  EXPECT_EQ(j.distribution, Distribution::Zipf);
  EXPECT_EQ(j.fadvise, AccessHint::Random);
  EXPECT_EQ(j.tunables.read_ahead_kb, 128);
  EXPECT_EQ(j.tunables.scheduler, "none");
  EXPECT_EQ(j.tunables.nr_requests, 64);
  // Written again, it has the new names only.
  const json again = j;
  EXPECT_TRUE(again.contains("ioengine"));
  EXPECT_FALSE(again.contains("engine"));
  EXPECT_FALSE(again.contains("tunables"));
  EXPECT_TRUE(again.get<JobSpec>() == j);
}

JobSpec Named() {
  JobSpec j;
  j.name = "n";
  j.target = "/dev/vdb";
  return j;
}

TEST(JobFieldsTest, Schema2IgnoresOldNames) {
  json j = Named();
  j["engine"] = "mmap";  // not a schema 2 name: no effect
  EXPECT_EQ(j.get<JobSpec>().engine, Engine::Psync);
}

TEST(JobFieldsTest, WireRequiresTheCoreFields) {
  json j = Named();
  j.erase("ioengine");
  EXPECT_THROW(j.get<JobSpec>(), json::exception);
}

TEST(JobFieldsTest, CheckMessagesUseTheRowName) {
  json j = Named();
  j["rwmixread"] = 101;
  try {
    (void)j.get<JobSpec>();
    FAIL() << "accepted rwmixread 101";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "rwmixread must be 0..100");
  }
}

TEST(JobFieldsTest, RandomRunIsForUniformRandomOnly) {
  json j = Named();
  j["pattern"] = "random";
  j["random_run"] = 4;
  EXPECT_EQ(j.get<JobSpec>().random_run, 4u);
  j["pattern"] = "sequential";
  try {
    (void)j.get<JobSpec>();
    FAIL() << "accepted random_run on a sequential job";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "random_run applies to pattern random with the uniform distribution only");
  }
}

}  // namespace
}  // namespace storbed

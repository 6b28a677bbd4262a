#include "scenario/scenario_fields.h"

#include <gtest/gtest.h>

#include <set>

#include "member_count_for_test.h"

namespace storbed {
namespace {

using nlohmann::json;
using testing::MemberCount;

// A value of the row's type that differs from `v`.
json Other(const FieldSpec& f, const json& v) {
  switch (f.type) {
    case FieldType::Integer: return v.get<int64_t>() + 1;
    case FieldType::Size:
    case FieldType::Duration: return v.get<uint64_t>() + 4096;
    case FieldType::Number: return v.get<double>() + 0.5;
    case FieldType::Bool: return !v.get<bool>();
    case FieldType::String: return v.get<std::string>() + "x";
    case FieldType::Enum: {
      const auto& a = f.allowed;
      const auto it = std::find(a.begin(), a.end(), v.get<std::string>());
      return a[(it - a.begin() + 1) % a.size()];
    }
    default: ADD_FAILURE() << f.name; return v;
  }
}

// Every row binds its own member: set through it, written and read back by the rows,
// the value survives and no other row sees a change.
template <class T>
void ExpectRowsRoundTrip(const std::vector<FieldRow<T>>& rows) {
  const T base{};
  for (const auto& row : rows) {
    SCOPED_TRACE(row.spec.name);
    T changed = base;
    row.set(changed, Other(row.spec, row.get(base)));
    EXPECT_FALSE(changed == base);
    json j = json::object();
    RowsToJson(rows, changed, j);
    T back{};
    RowsFromJson(rows, j, back);
    EXPECT_TRUE(back == changed);
    for (const auto& other : rows) {
      if (&other == &row) continue;
      EXPECT_EQ(other.get(changed), other.get(base)) << other.spec.name;
    }
  }
}

// Rows per member: `tunables` is reached through its four members' rows.
template <class T>
size_t TopLevelMembersWithRows(const std::vector<FieldRow<T>>& rows, size_t tunables) {
  std::set<size_t> offsets;
  size_t top = 0;
  for (const auto& row : rows) {
    EXPECT_TRUE(offsets.insert(row.offset).second) << row.spec.name;
    if (row.offset < tunables || row.offset >= tunables + sizeof(BlockTunables)) ++top;
  }
  return top;
}

TEST(ScenarioFieldsTest, EveryMachineMemberHasExactlyOneRow) {
  const size_t tunables = OffsetOf(&MachineConfig::tunables);
  EXPECT_EQ(TopLevelMembersWithRows(MachineRows(), tunables) + 1, MemberCount<MachineConfig>());
  EXPECT_EQ(MachineRows().size(), MemberCount<MachineConfig>() - 1 + 4);
}

TEST(ScenarioFieldsTest, EveryDiskMemberHasExactlyOneRow) {
  EXPECT_EQ(TopLevelMembersWithRows(DiskRows(), SIZE_MAX), MemberCount<DiskConfig>());
}

TEST(ScenarioFieldsTest, MachineAndDiskRowsRoundTrip) {
  ExpectRowsRoundTrip(MachineRows());
  ExpectRowsRoundTrip(DiskRows());
}

TEST(ScenarioFieldsTest, EnumValuesComeFromTheEnumsNameTables) {
  EXPECT_EQ(RowOf(DiskRows(), &DiskConfig::aio).spec.allowed, EnumNames<Aio>());
  EXPECT_EQ(RowOf(DiskRows(), &DiskConfig::cache).spec.allowed, EnumNames<CacheMode>());
  EXPECT_EQ(FieldsOf("scenario")[2]->allowed, TargetNames());
  EXPECT_EQ(FieldName(&DiskConfig::null_latency_ns), "disk.null_latency");
}

TEST(ScenarioFieldsTest, JobSectionIsTheJobRowsPlusInvalidate) {
  std::vector<std::string> names;
  for (const auto* f : FieldsOf("job")) names.push_back(f->name);
  EXPECT_NE(std::find(names.begin(), names.end(), "invalidate"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "ioengine"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "target"), names.end());  // wire only
}

}  // namespace
}  // namespace storbed

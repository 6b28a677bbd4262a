#include "engine_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "job.h"

namespace storbed {
namespace {

TEST(EngineTableTest, EveryRowIsItsOwnEnginesRowAndNamesAreUnique) {
  std::set<std::string> names, fio_names;
  std::set<Engine> engines;
  for (const EngineRow& row : EngineRows()) {
    EXPECT_TRUE(engines.insert(row.engine).second) << row.name << ": a second row";
    EXPECT_EQ(&RowOf(row.engine), &row) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_STRNE(row.help, "") << row.name;
    EXPECT_EQ(ParseEngine(row.name), row.engine);
    EXPECT_EQ(ToString(row.engine), row.name);
    for (const char* f : row.fio_names) {
      if (f) {
        EXPECT_TRUE(fio_names.insert(f).second) << "fio ioengine " << f << " in two rows";
      }
    }
    // The synchronous engines run one IO at a time; reap poll is an async engine's mode.
    if (!row.async) {
      EXPECT_EQ(row.max_iodepth, 1u) << row.name;
    }
    if (row.reap_poll) {
      EXPECT_TRUE(row.async) << row.name;
    }
  }
  EXPECT_EQ(names.size(), EngineNames().size());
}

TEST(EngineTableTest, EveryEngineValueUpToTheLastHasARow) {
  // Engine values are dense from 0; the last one is the last row.
  const auto rows = EngineRows();
  ASSERT_EQ(rows.size(), size_t(kLastEngine) + 1);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(size_t(rows[i].engine), i) << rows[i].name;
}

TEST(EngineTableTest, UnknownNameListsTheRows) {
  try {
    ParseEngine("posixaio");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown engine 'posixaio' (allowed: " + EngineNameList() + ")");
  }
  EXPECT_EQ(FindEngineRow("posixaio"), nullptr);
}

TEST(EngineTableTest, FioAliasesMapToTheirRow) {
  EXPECT_EQ(FindFioEngineRow("sync")->engine, Engine::Psync);
  EXPECT_EQ(FindFioEngineRow("pvsync")->engine, Engine::Psync);
  EXPECT_EQ(FindFioEngineRow("io_uring")->engine, Engine::IoUring);
  EXPECT_EQ(FindFioEngineRow("pvsync2")->engine, Engine::Pvsync2);
  EXPECT_EQ(FindFioEngineRow("posixaio")->engine, Engine::IoUring);
  EXPECT_EQ(FindFioEngineRow("windowsaio"), nullptr);
}

// fio spells pvsync2's RWF_HIPRI and RWF_NOWAIT as flags of its pvsync2 engine; storbed
// has an engine for each. Their ioengine is an engine imported under its own name.
TEST(EngineTableTest, Pvsync2FlagsAreSpelledAsFioSpellsThem) {
  EXPECT_EQ(FindFioFlagRow("pvsync2", "hipri")->engine, Engine::Pvsync2Hipri);
  EXPECT_EQ(FindFioFlagRow("pvsync2", "nowait")->engine, Engine::Pvsync2Nowait);
  EXPECT_EQ(FindFioFlagRow("io_uring", "hipri"), nullptr);
  EXPECT_EQ(FioIoengineOf(RowOf(Engine::Pvsync2Hipri)), "pvsync2");
  EXPECT_EQ(FioIoengineOf(RowOf(Engine::Psync)), "psync");
  ASSERT_EQ(FioFlagRows().size(), 2u);
  for (const EngineRow* row : FioFlagRows()) {
    ASSERT_NE(FindFioEngineRow(row->fio_ioengine), nullptr) << row->name;
    EXPECT_EQ(FindFioEngineRow(row->fio_ioengine)->name, std::string(row->fio_ioengine));
  }
}

TEST(EngineTableTest, QuotedNamesOfAColumn) {
  EXPECT_EQ(QuotedEngineNames(&EngineRow::reap_poll), "\"io_uring\" and \"libaio\"");
  EXPECT_EQ(QuotedEngineNames(&EngineRow::needs_buffered), "\"mmap\"");
}

}  // namespace
}  // namespace storbed

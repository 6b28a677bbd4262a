// The IO engines, one row each: the one place that names an engine, says where fio
// spells it, and what it can do. Scenario validation, fio import, the job JSON and the
// agent's engine factories all read these rows (DESIGN: a variant is one row).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace storbed {

enum class Engine { Psync, IoUring, Libaio, Mmap, Pvsync2, Pvsync2Hipri, Pvsync2Nowait };
// Keep it the last value above: the tests check that every value up to it has a row.
inline constexpr Engine kLastEngine = Engine::Pvsync2Nowait;

struct EngineRow {
  Engine engine;
  const char* name;  // scenario and wire name
  // fio ioengine names imported as this engine (up to three, unused ones null); a name
  // other than `name` is imported with the note "ioengine <fio> runs as <name> (<why>)".
  const char* fio_names[3] = {};
  const char* fio_why = "";
  // Where fio has no ioengine of this name: fio's ioengine (a row's name too) and the flag
  // option that, set to 1, makes it this engine (pvsync2 with hipri); null for the others.
  // The fio import reads them and the fio-json output writes them.
  const char* fio_ioengine = nullptr;
  const char* fio_flag = nullptr;
  // A row states only what differs from these: a synchronous engine, wait-only, direct
  // or buffered, one IO at a time.
  bool async = false;         // keeps iodepth IOs in flight; false: one call at a time
  bool reap_poll = false;     // reap modes: wait and poll (true) or wait only
  bool needs_buffered = false;  // works through the page cache only: direct must be false
  uint32_t max_iodepth = 1;   // 1 for the synchronous engines; 0 = no limit
  const char* help = "";      // one line
};

// Every engine, in declaration order.
std::span<const EngineRow> EngineRows();
// The row of `e` (every Engine value has one; asserted by the tests).
const EngineRow& RowOf(Engine e);
// The row whose scenario name is `name`, or null.
const EngineRow* FindEngineRow(const std::string& name);
// The row that imports fio's ioengine `fio_name` (already lower-case), or null.
const EngineRow* FindFioEngineRow(const std::string& fio_name);
// The row that fio spells as ioengine `fio_ioengine` with `fio_flag`=1, or null.
const EngineRow* FindFioFlagRow(const std::string& fio_ioengine, const std::string& fio_flag);
// The rows that some fio flag picks (fio_flag set), in row order.
std::vector<const EngineRow*> FioFlagRows();
// fio's ioengine for `row` (fio_ioengine, else the name).
std::string FioIoengineOf(const EngineRow& row);
// The scenario names, in row order: "psync", "io_uring", ...
std::vector<std::string> EngineNames();
// The same joined with ", ", for error messages.
std::string EngineNameList();
// The names of the rows where `column` is true, quoted, for messages:
// "\"io_uring\" and \"libaio\"".
std::string QuotedEngineNames(bool EngineRow::*column);

}  // namespace storbed

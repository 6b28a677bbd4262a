#include "engine_table.h"

#include <cassert>

namespace storbed {
namespace {

constexpr EngineRow kEngineRows[] = {
    {.engine = Engine::Psync,
     .name = "psync",
     .fio_names = {"psync", "sync", "pvsync"},
     .fio_why = "one positioned call at a time",
     .help = "pread/pwrite, one IO at a time: the baseline"},
    {.engine = Engine::IoUring,
     .name = "io_uring",
     .fio_names = {"io_uring", "posixaio"},
     .fio_why = "iodepth IOs in flight, buffered or direct, as glibc's thread-pool POSIX AIO "
                "keeps them",
     .async = true,
     .reap_poll = true,
     .max_iodepth = 0,
     .help = "io_uring ring, iodepth IOs in flight, refills submitted in batches"},
    {.engine = Engine::Libaio,
     .name = "libaio",
     .fio_names = {"libaio"},
     .async = true,
     .reap_poll = true,
     .max_iodepth = 0,
     .help = "Linux native AIO (io_submit/io_getevents); asynchronous only with direct"},
    {.engine = Engine::Mmap,
     .name = "mmap",
     .fio_names = {"mmap"},
     .needs_buffered = true,
     .help = "loads and stores through a shared mapping of the target (page cache)"},
    {.engine = Engine::Pvsync2,
     .name = "pvsync2",
     .fio_names = {"pvsync2"},
     .help = "preadv2/pwritev2 with one iovec, one IO at a time (fio pvsync2)"},
    {.engine = Engine::Pvsync2Hipri,
     .name = "pvsync2_hipri",
     .fio_ioengine = "pvsync2",
     .fio_flag = "hipri",
     .help = "pvsync2 with RWF_HIPRI: polled completion where the device has poll queues "
             "(fio pvsync2 + hipri)"},
    {.engine = Engine::Pvsync2Nowait,
     .name = "pvsync2_nowait",
     .fio_ioengine = "pvsync2",
     .fio_flag = "nowait",
     .help = "pvsync2 with RWF_NOWAIT: an IO that would block fails with EAGAIN "
             "(fio pvsync2 + nowait)"},
};

}  // namespace

std::span<const EngineRow> EngineRows() { return kEngineRows; }

const EngineRow& RowOf(Engine e) {
  for (const EngineRow& row : kEngineRows)
    if (row.engine == e) return row;
  assert(false && "an Engine value without a row");
  return kEngineRows[0];
}

const EngineRow* FindEngineRow(const std::string& name) {
  for (const EngineRow& row : kEngineRows)
    if (name == row.name) return &row;
  return nullptr;
}

const EngineRow* FindFioEngineRow(const std::string& fio_name) {
  for (const EngineRow& row : kEngineRows)
    for (const char* f : row.fio_names)
      if (f && fio_name == f) return &row;
  return nullptr;
}

const EngineRow* FindFioFlagRow(const std::string& fio_ioengine, const std::string& fio_flag) {
  for (const EngineRow& row : kEngineRows)
    if (row.fio_flag && fio_ioengine == row.fio_ioengine && fio_flag == row.fio_flag) return &row;
  return nullptr;
}

std::vector<const EngineRow*> FioFlagRows() {
  std::vector<const EngineRow*> rows;
  for (const EngineRow& row : kEngineRows)
    if (row.fio_flag) rows.push_back(&row);
  return rows;
}

std::string FioIoengineOf(const EngineRow& row) {
  return row.fio_ioengine ? row.fio_ioengine : row.name;
}

std::vector<std::string> EngineNames() {
  std::vector<std::string> names;
  for (const EngineRow& row : kEngineRows) names.push_back(row.name);
  return names;
}

std::string EngineNameList() {
  std::string out;
  for (const EngineRow& row : kEngineRows) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

std::string QuotedEngineNames(bool EngineRow::*column) {
  std::vector<std::string> quoted;
  for (const EngineRow& row : kEngineRows)
    if (row.*column) quoted.push_back("\"" + std::string(row.name) + "\"");
  std::string out;
  for (size_t i = 0; i < quoted.size(); ++i)
    out += (i == 0 ? "" : i + 1 == quoted.size() ? " and " : ", ") + quoted[i];
  return out;
}

}  // namespace storbed

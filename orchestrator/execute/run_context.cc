#include "execute/run_context.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

namespace storbed {
namespace {

// A full out dir keeps the record in memory (results_dir.h); the log says so at once.
void WarnIfUnsaved(RunContext& ctx, const std::string& run_id) {
  const std::string why = ctx.results.UnsavedError();
  if (why.empty()) return;
  ctx.log << "  " << run_id << ": warning: results.json is not up to date (" << why
          << "); the record is kept and written with the next one\n";
}

}  // namespace

void RecordFailure(RunContext& ctx, RunRecord record, RunStatus status, const std::string& why) {
  record.status = status;
  record.error = why;
  ctx.log << "  " << record.run_id << ": " << ToString(status) << ": " << why << "\n";
  ctx.results.Append(record);
  WarnIfUnsaved(ctx, record.run_id);
}

void StoreFinishedRecord(RunContext& ctx, RunRecord record, const std::vector<Timeline>& host) {
  std::vector<Timeline> guest;
  if (record.result) guest = std::move(record.result->timelines);
  if (record.result) record.result->timelines.clear();
  // The measurement reaches results.json first: a full disk then costs the timelines,
  // never the record.
  ctx.results.Append(record);
  WarnIfUnsaved(ctx, record.run_id);
  if (guest.empty() && host.empty()) return;
  const std::string file = "timelines/" + record.run_id + ".json";
  try {
    std::filesystem::create_directories(ctx.results.File("timelines"));
    const nlohmann::json doc = {{"run_id", record.run_id},
                                {"clock", "seconds since the job's IO phase began"},
                                {"guest", guest},
                                {"host", host}};
    WriteFileAtomically(ctx.results.File(file), doc.dump() + "\n");
    record.timelines_file = file;
  } catch (const std::exception& e) {
    const std::string warning = std::string("timelines not kept: ") + e.what();
    ctx.log << "  " << record.run_id << ": warning: " << warning << "\n";
    if (!record.host.contains("warnings") || !record.host["warnings"].is_array())
      record.host["warnings"] = nlohmann::json::array();
    record.host["warnings"].push_back(warning);
  }
  try {
    ctx.results.Update(record);
  } catch (const std::exception& e) {
    ctx.log << "  " << record.run_id << ": warning: results.json keeps the record without "
            << "its timelines: " << e.what() << "\n";
  }
}

std::chrono::milliseconds JobReplyTimeout(const JobSpec& job) {
  double seconds = 120;
  if (job.runtime_s > 0) seconds += job.runtime_s * 3;
  // A one-pass or io_size job: allow 1 MiB/s, slower than any TCG guest seen here.
  const uint64_t bytes = job.io_limit ? job.io_limit : job.size;
  seconds += bytes / double(1 << 20);
  if (job.runtime_s <= 0 && bytes == 0) seconds = 3600;  // whole disk, size unknown here
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace storbed

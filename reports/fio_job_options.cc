#include "reports/fio_job_options.h"

#include <cmath>
#include <set>

#include "job_fields.h"

namespace storbed {
namespace {

using ordered_json = nlohmann::ordered_json;

// fio's rw for the direction and pattern; a note where fio has no exact equivalent.
std::string FioRw(const JobSpec& job, std::vector<std::string>& notes) {
  const bool random = job.pattern == Pattern::Random;
  std::string rw = job.rw == Direction::Read    ? (random ? "randread" : "read")
                   : job.rw == Direction::Write ? (random ? "randwrite" : "write")
                                                : (random ? "randrw" : "rw");
  // fio's rw=read:<skip> skips that many bytes after every IO: storbed's gappy pattern
  // with one block read per run (the fio import maps it so).
  if (job.pattern == Pattern::Gappy && job.gappy_read == 1)
    return rw + ":" + FioSizeText(uint64_t(job.gappy_skip) * job.bs);
  if (job.pattern == Pattern::Gappy)
    notes.push_back("pattern gappy (" + std::to_string(job.gappy_read) + " blocks read, " +
                    std::to_string(job.gappy_skip) +
                    " skipped) has no fio rw: fio skips after every IO; written as rw=" + rw);
  if (job.pattern == Pattern::Strided)
    notes.push_back("pattern strided (stride " + std::to_string(job.stride_blocks) +
                    " blocks, every block once per pass) has no fio rw; written as rw=" + rw);
  return rw;
}

// A field row's value as fio echoes an option: sizes in k/m, booleans 1/0.
std::string FioValueText(const FieldSpec& spec, const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (spec.type == FieldType::Size) return FioSizeText(v.get<uint64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return d == std::floor(d) ? std::to_string(int64_t(d)) : v.dump();
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Whether a row's value is its "off" state (0, false, ""), which fio leaves out too.
bool IsOff(const nlohmann::json& v) { return v.is_null() || v == false || v == 0 || v == ""; }

}  // namespace

std::string FioSizeText(uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + "g";
  if (bytes != 0 && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + "m";
  if (bytes != 0 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "k";
  return std::to_string(bytes);
}

FioJobOptions FioJobOptionsOf(const JobSpec& job, const std::string& device) {
  FioJobOptions out;
  ordered_json& o = out.options;
  o["name"] = job.name;
  if (!device.empty()) o["filename"] = device;
  o["rw"] = FioRw(job, out.notes);
  // An engine fio spells as a flag of another (pvsync2 + hipri) says so in its row.
  const EngineRow& engine = RowOf(job.engine);
  o["ioengine"] = FioIoengineOf(engine);
  if (engine.fio_flag) o[engine.fio_flag] = "1";
  // The rows fio has 1:1 (their `fio` column). bs, iodepth, numjobs and direct always, as
  // fio-plot reads them from every job; the rest when set.
  static const std::set<std::string> kAlways = {"bs", "iodepth", "numjobs", "direct"};
  for (const auto& row : JobRows()) {
    if (row.spec.fio.empty()) continue;
    const nlohmann::json v = row.get(job);
    if (row.spec.fio == "rwmixread" ? job.rw != Direction::Mixed
                                    : !kAlways.count(row.spec.fio) && IsOff(v))
      continue;
    o[row.spec.fio] = FioValueText(row.spec, v);
  }
  if (job.runtime_s > 0) o["runtime"] = FioValueText({}, job.runtime_s);
  if (job.loops > 1) o["loops"] = std::to_string(job.loops);
  if (job.pattern == Pattern::Random) o["randseed"] = std::to_string(job.seed);
  return out;
}

}  // namespace storbed

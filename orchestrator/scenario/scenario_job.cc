// One job combination -> JobSpec: the job rows set their members, then the rules that
// tie job fields together. Rules name fields through their rows (Key/fail below).
#include <functional>
#include <string>

#include "engine_table.h"
#include "job_fields.h"
#include "number_format.h"
#include "scenario/name_rule.h"
#include "scenario/scenario_validate.h"

namespace storbed {

using nlohmann::json;

namespace {

// A time limit shorter than this ended before the first IO: "ok" with 0 IOs.
constexpr double kMinRuntimeS = 0.01;

template <class M>
std::string Key(M JobSpec::*member) {
  return JobRow(member).spec.name;
}

template <class T>
std::string Key(T BlockTunables::*member) {
  return RowAt(JobRows(), OffsetOf(&JobSpec::tunables) + OffsetOf(member)).spec.name;
}

// Rules between the engine, the pattern and their options.
void CheckEngineAndPattern(
    const JobSpec& spec, const json& given,
    const std::function<void(const std::string&, const std::string&)>& fail) {
  const std::string engine = "(" + Key(&JobSpec::engine) + " is \"" + ToString(spec.engine) + "\"";
  if (spec.bs % 512 != 0)
    fail(Key(&JobSpec::bs), "must be a multiple of 512, got " + std::to_string(spec.bs));
  if (spec.reap == Reap::Poll && !RowOf(spec.engine).reap_poll)
    fail(Key(&JobSpec::reap), "poll applies to " + Key(&JobSpec::engine) + " " +
                                  QuotedEngineNames(&EngineRow::reap_poll) + " only " + engine +
                                  ", which is synchronous)");
  if (spec.submit_batch != 0 && !RowOf(spec.engine).async)
    fail(Key(&JobSpec::submit_batch),
         "applies to " + Key(&JobSpec::engine) + " " + QuotedEngineNames(&EngineRow::async) +
             " only " + engine + ", which is synchronous)");
  if ((spec.fsync_every || spec.end_fsync) && spec.rw == Direction::Read)
    fail(Key(&JobSpec::fsync_every),
         Key(&JobSpec::fsync_every) + " and " + Key(&JobSpec::end_fsync) +
             " apply to write jobs only (rw is \"" + ToString(spec.rw) + "\")");
  if (spec.rw != Direction::Mixed && given.contains(Key(&JobSpec::read_pct)))
    fail(Key(&JobSpec::read_pct),
         "applies to rw \"mixed\" only (rw is \"" + ToString(spec.rw) + "\")");
  if (spec.distribution != Distribution::Uniform && spec.pattern != Pattern::Random)
    fail(Key(&JobSpec::distribution),
         "applies to pattern \"random\" only (pattern is \"" + ToString(spec.pattern) + "\")");
  if (spec.distribution == Distribution::Zipf && spec.zipf_theta == 1.0)
    fail(Key(&JobSpec::zipf_theta), "must not be 1 (use 0.9 or 1.1 for a near-harmonic skew)");
  if (spec.distribution == Distribution::HotCold &&
      (spec.hot_fraction <= 0 || spec.hot_fraction >= 1))
    fail(Key(&JobSpec::hot_fraction),
         "must be between 0 and 1 (exclusive) for " + Key(&JobSpec::distribution) + " hotcold");
  if (spec.engine == Engine::Mmap) {
    if (spec.direct)
      fail(Key(&JobSpec::engine), "mmap reads go through the page cache: set direct false");
    if (spec.iodepth != 1)
      fail(Key(&JobSpec::iodepth),
           Key(&JobSpec::engine) + " mmap issues one access at a time: set 1");
    if (spec.mmap_window % 4096 != 0)
      fail(Key(&JobSpec::mmap_window),
           "must be a multiple of the page size (4k), got " + std::to_string(spec.mmap_window));
  } else {
    if (spec.madvise != AccessHint::None)
      fail(Key(&JobSpec::madvise),
           "applies to " + Key(&JobSpec::engine) + " \"mmap\" only " + engine + ")");
    if (spec.mmap_window != 0)
      fail(Key(&JobSpec::mmap_window),
           "applies to " + Key(&JobSpec::engine) + " \"mmap\" only " + engine + ")");
  }
}

// invalidate is fio's bool for cold/keep; cache says more. Both may be given if they agree.
void ApplyInvalidate(JobSpec& spec, const json& j, const json& given,
                     const std::function<void(const std::string&, const std::string&)>& fail) {
  const std::string cache = Key(&JobSpec::cache);
  if (given.contains("invalidate")) {
    const bool invalidate = j["invalidate"];
    if (!given.contains(cache)) {
      spec.cache = invalidate ? CacheState::Cold : CacheState::Keep;
    } else if (invalidate !=
               (spec.cache == CacheState::Cold || spec.cache == CacheState::ColdGlobal)) {
      fail("invalidate", std::string("invalidate ") + (invalidate ? "true" : "false") +
                             " contradicts " + cache + " \"" + ToString(spec.cache) +
                             "\" (invalidate true means " + cache + " \"cold\" or \"cold-global\"): give one of "
                             "them");
    }
  }
  const std::string fraction = Key(&JobSpec::cached_fraction);
  if (spec.cache == CacheState::Partial && !given.contains(fraction))
    fail(fraction, "required with " + cache +
                       " \"partial\" (the fraction of the region to "
                       "cache first, 0 .. 1)");
  if (spec.cache != CacheState::Partial && given.contains(fraction))
    fail(fraction, "applies to " + cache + " \"partial\" only (" + cache + " is \"" +
                       ToString(spec.cache) + "\")");
}

}  // namespace

JobSpec BuildJob(const Validator& check, const json& j, const json& given,
                 const std::string& where) {
  auto fail = [&](const std::string& field, const std::string& reason) {
    check.Fail(where + "." + field, reason);
  };
  JobSpec spec;
  for (const auto& row : JobRows())
    if (row.spec.in_scenario) row.set(spec, j[row.spec.name]);
  // rwmixread's scenario default (50) is for mixed jobs; others read only.
  if (spec.rw != Direction::Mixed) spec.read_pct = JobSpec{}.read_pct;
  CheckEngineAndPattern(spec, given, fail);
  if (spec.io_limit != 0 && spec.io_limit < spec.bs)
    fail(Key(&JobSpec::io_limit), std::to_string(spec.io_limit) + " bytes is less than one block (" +
                                      Key(&JobSpec::bs) + " " + std::to_string(spec.bs) +
                                      " bytes): the job would do no IO");
  ApplyInvalidate(spec, j, given, fail);
  if (spec.runtime_s > 0 && spec.runtime_s < kMinRuntimeS)
    fail(Key(&JobSpec::runtime_s),
         FormatDouble(spec.runtime_s, "%g") + " s is shorter than " +
             FormatDouble(kMinRuntimeS, "%g") +
             " s, the shortest time limit (0 means none): the job would end before its first "
             "IO and report 0 IOs");
  if (spec.tunables.nr_requests == 0)
    fail(Key(&BlockTunables::nr_requests), "must be at least 1, or -1 to leave it");
  if (spec.tunables.max_sectors_kb == 0)
    fail(Key(&BlockTunables::max_sectors_kb), "must be at least 1, or -1 to leave it");
  if (const std::string why = SchedulerNameProblem(spec.tunables.scheduler); !why.empty())
    fail(Key(&BlockTunables::scheduler), why);
  // One request per IO is what the trace follows; the page cache breaks that.
  if (spec.trace && !spec.direct)
    fail(Key(&JobSpec::trace), "buffered IO reaches the block layer as page-cache readahead "
                               "and writeback, not one request per IO: set direct true");
  if (spec.trace_detail && !spec.trace)
    fail(Key(&JobSpec::trace_detail), "applies to traced jobs only: set trace true");
  if (spec.trace && spec.engine == Engine::Mmap)
    fail(Key(&JobSpec::trace), "ioengine mmap moves pages by faults and writeback, not one "
                               "request per IO");
  return spec;
}

}  // namespace storbed

// One job combination -> JobSpec, with the rules that tie job fields together.
#include <string>

#include "run/scenario_validate.h"

namespace storbed {

using nlohmann::json;

JobSpec BuildJob(const Validator& check, const json& j, const json& given,
                 const std::string& where) {
  auto fail = [&](const std::string& field, const std::string& reason) {
    check.Fail(where + "." + field, reason);
  };
  JobSpec spec;
  spec.name = j["name"];
  spec.pattern = ParsePattern(j["pattern"]);
  spec.rw = ParseDirection(j["rw"]);
  spec.engine = ParseEngine(j["ioengine"]);
  spec.bs = j["bs"];
  if (spec.bs % 512 != 0) fail("bs", "must be a multiple of 512, got " + std::to_string(spec.bs));
  spec.iodepth = j["iodepth"];
  spec.reap = ParseReap(j["reap"]);
  if (spec.reap == Reap::Poll && !RowOf(spec.engine).reap_poll)
    fail("reap", "poll applies to ioengine " + QuotedEngineNames(&EngineRow::reap_poll) +
                     " only (ioengine is \"" +
                     ToString(spec.engine) + "\", which is synchronous)");
  spec.numjobs = j["numjobs"];
  spec.numjobs_split = j["numjobs_split"];
  spec.size = j["size"];
  spec.io_limit = j["io_size"];
  spec.runtime_s = j["runtime"];
  spec.direct = j["direct"];
  spec.gappy_read = j["gappy_read"];
  spec.gappy_skip = j["gappy_skip"];
  spec.seed = j["seed"];
  spec.fsync_every = j["fsync"];
  spec.end_fsync = j["end_fsync"];
  spec.inflight_sample_ms = j["inflight_sample_ms"];
  spec.stats_sample_ms = j["stats_sample_ms"];
  if ((spec.fsync_every || spec.end_fsync) && spec.rw == Direction::Read)
    fail("fsync", "fsync and end_fsync apply to write jobs only (rw is \"" + ToString(spec.rw) +
                      "\")");

  if (spec.rw == Direction::Mixed) {
    spec.read_pct = j["rwmixread"];
  } else if (given.contains("rwmixread")) {
    fail("rwmixread", "applies to rw \"mixed\" only (rw is \"" + ToString(spec.rw) + "\")");
  }
  spec.stride_blocks = j["stride"];

  spec.distribution = ParseDistribution(j["random_distribution"]);
  if (spec.distribution != Distribution::Uniform && spec.pattern != Pattern::Random)
    fail("random_distribution", "applies to pattern \"random\" only (pattern is \"" +
                                    ToString(spec.pattern) + "\")");
  spec.zipf_theta = j["zipf_theta"];
  if (spec.distribution == Distribution::Zipf && spec.zipf_theta == 1.0)
    fail("zipf_theta", "must not be 1 (use 0.9 or 1.1 for a near-harmonic skew)");
  spec.hot_fraction = j["hot_fraction"];
  spec.hot_pct = j["hot_pct"];
  if (spec.distribution == Distribution::HotCold &&
      (spec.hot_fraction <= 0 || spec.hot_fraction >= 1))
    fail("hot_fraction", "must be between 0 and 1 (exclusive) for random_distribution hotcold");

  spec.fadvise = ParseAccessHint(j["fadvise_hint"]);
  spec.madvise = ParseAccessHint(j["madvise_hint"]);
  spec.mmap_window = j["mmap_window"];
  if (spec.engine == Engine::Mmap) {
    if (spec.direct) fail("ioengine", "mmap reads go through the page cache: set direct false");
    if (spec.iodepth != 1) fail("iodepth", "ioengine mmap issues one access at a time: set 1");
    if (spec.mmap_window % 4096 != 0)
      fail("mmap_window", "must be a multiple of the page size (4k), got " +
                              std::to_string(spec.mmap_window));
  } else {
    if (spec.madvise != AccessHint::None)
      fail("madvise_hint", "applies to ioengine \"mmap\" only (ioengine is \"" +
                               ToString(spec.engine) + "\")");
    if (spec.mmap_window != 0)
      fail("mmap_window", "applies to ioengine \"mmap\" only (ioengine is \"" +
                              ToString(spec.engine) + "\")");
  }
  spec.verify = j["verify"];

  // invalidate is fio's bool for cold/keep; cache says more. Both may be given if they agree.
  spec.cache = ParseCacheState(j["cache"]);
  if (given.contains("invalidate")) {
    const bool invalidate = j["invalidate"];
    if (!given.contains("cache")) {
      spec.cache = invalidate ? CacheState::Cold : CacheState::Keep;
    } else if (invalidate != (spec.cache == CacheState::Cold)) {
      fail("invalidate", std::string("invalidate ") + (invalidate ? "true" : "false") +
                             " contradicts cache \"" + ToString(spec.cache) +
                             "\" (invalidate true means cache \"cold\"): give one of them");
    }
  }
  spec.cached_fraction = j["cached_fraction"];
  if (spec.cache == CacheState::Partial && !given.contains("cached_fraction"))
    fail("cached_fraction", "required with cache \"partial\" (the fraction of the region to "
                            "cache first, 0 .. 1)");
  if (spec.cache != CacheState::Partial && given.contains("cached_fraction"))
    fail("cached_fraction",
         "applies to cache \"partial\" only (cache is \"" + ToString(spec.cache) + "\")");

  spec.tunables.read_ahead_kb = j["read_ahead_kb"];
  spec.tunables.scheduler = j["scheduler"];
  spec.tunables.nr_requests = j["nr_requests"];
  if (spec.tunables.nr_requests == 0) fail("nr_requests", "must be at least 1, or -1 to leave it");
  spec.tunables.max_sectors_kb = j["max_sectors_kb"];
  if (spec.tunables.max_sectors_kb == 0)
    fail("max_sectors_kb", "must be at least 1, or -1 to leave it");
  return spec;
}

}  // namespace storbed

#include "job.h"

#include <stdexcept>

namespace storbed {
namespace {

template <typename E, size_t N>
E ParseName(const std::string& s, const std::pair<E, const char*> (&table)[N], const char* what) {
  std::string allowed;
  for (const auto& [value, name] : table) {
    if (s == name) return value;
    allowed += allowed.empty() ? name : std::string(", ") + name;
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + s + "' (allowed: " +
                              allowed + ")");
}

template <typename E, size_t N>
std::string NameOf(E v, const std::pair<E, const char*> (&table)[N]) {
  for (const auto& [value, name] : table)
    if (value == v) return name;
  return "?";
}

constexpr std::pair<Pattern, const char*> kPatterns[] = {{Pattern::Sequential, "sequential"},
                                                         {Pattern::Random, "random"},
                                                         {Pattern::Gappy, "gappy"},
                                                         {Pattern::Strided, "strided"}};
constexpr std::pair<Direction, const char*> kDirections[] = {
    {Direction::Read, "read"}, {Direction::Write, "write"}, {Direction::Mixed, "mixed"}};
constexpr std::pair<CacheState, const char*> kCacheStates[] = {{CacheState::Cold, "cold"},
                                                               {CacheState::Keep, "keep"},
                                                               {CacheState::Warm, "warm"},
                                                               {CacheState::Partial, "partial"}};
constexpr std::pair<Distribution, const char*> kDistributions[] = {
    {Distribution::Uniform, "uniform"}, {Distribution::Zipf, "zipf"},
    {Distribution::HotCold, "hotcold"}};
constexpr std::pair<AccessHint, const char*> kAccessHints[] = {{AccessHint::None, "none"},
                                                               {AccessHint::Sequential, "sequential"},
                                                               {AccessHint::Random, "random"},
                                                               {AccessHint::WillNeed, "willneed"}};
constexpr std::pair<Reap, const char*> kReaps[] = {{Reap::Wait, "wait"}, {Reap::Poll, "poll"}};

}  // namespace

std::string ToString(Pattern p) { return NameOf(p, kPatterns); }
std::string ToString(Engine e) { return RowOf(e).name; }
std::string ToString(Direction d) { return NameOf(d, kDirections); }
std::string ToString(CacheState c) { return NameOf(c, kCacheStates); }
Pattern ParsePattern(const std::string& s) { return ParseName(s, kPatterns, "pattern"); }
Engine ParseEngine(const std::string& s) {
  if (const EngineRow* row = FindEngineRow(s)) return row->engine;
  throw std::invalid_argument("unknown engine '" + s + "' (allowed: " + EngineNameList() + ")");
}
Direction ParseDirection(const std::string& s) { return ParseName(s, kDirections, "rw"); }
CacheState ParseCacheState(const std::string& s) { return ParseName(s, kCacheStates, "cache"); }
std::string ToString(Distribution d) { return NameOf(d, kDistributions); }
std::string ToString(AccessHint h) { return NameOf(h, kAccessHints); }
Distribution ParseDistribution(const std::string& s) {
  return ParseName(s, kDistributions, "distribution");
}
AccessHint ParseAccessHint(const std::string& s) { return ParseName(s, kAccessHints, "hint"); }
std::string ToString(Reap r) { return NameOf(r, kReaps); }
Reap ParseReap(const std::string& s) { return ParseName(s, kReaps, "reap"); }

void to_json(nlohmann::json& j, const BlockTunables& t) {
  j = nlohmann::json{{"read_ahead_kb", t.read_ahead_kb},
                     {"scheduler", t.scheduler},
                     {"nr_requests", t.nr_requests},
                     {"max_sectors_kb", t.max_sectors_kb}};
}

void from_json(const nlohmann::json& j, BlockTunables& t) {
  t.read_ahead_kb = j.value("read_ahead_kb", int64_t{-1});
  t.scheduler = j.value("scheduler", std::string());
  t.nr_requests = j.value("nr_requests", int64_t{-1});
  t.max_sectors_kb = j.value("max_sectors_kb", int64_t{-1});
}

void to_json(nlohmann::json& j, const JobSpec& s) {
  j = nlohmann::json{{"name", s.name},
                     {"target", s.target},
                     {"pattern", ToString(s.pattern)},
                     {"rw", ToString(s.rw)},
                     {"engine", ToString(s.engine)},
                     {"bs", s.bs},
                     {"iodepth", s.iodepth},
                     {"reap", ToString(s.reap)},
                     {"numjobs", s.numjobs},
                     {"numjobs_split", s.numjobs_split},
                     {"offset", s.offset},
                     {"size", s.size},
                     {"runtime_s", s.runtime_s},
                     {"io_limit", s.io_limit},
                     {"direct", s.direct},
                     {"gappy_read", s.gappy_read},
                     {"gappy_skip", s.gappy_skip},
                     {"seed", s.seed},
                     {"cache", ToString(s.cache)},
                     {"fsync_every", s.fsync_every},
                     {"end_fsync", s.end_fsync},
                     {"inflight_sample_ms", s.inflight_sample_ms},
                     {"stats_sample_ms", s.stats_sample_ms},
                     {"read_pct", s.read_pct},
                     {"stride_blocks", s.stride_blocks},
                     {"distribution", ToString(s.distribution)},
                     {"zipf_theta", s.zipf_theta},
                     {"hot_fraction", s.hot_fraction},
                     {"hot_pct", s.hot_pct},
                     {"fadvise", ToString(s.fadvise)},
                     {"madvise", ToString(s.madvise)},
                     {"mmap_window", s.mmap_window},
                     {"verify", s.verify},
                     {"cached_fraction", s.cached_fraction},
                     {"tunables", s.tunables},
                     {"filesystem", s.filesystem},
                     {"fs_file", s.fs_file}};
}

void from_json(const nlohmann::json& j, JobSpec& s) {
  s.name = j.at("name").get<std::string>();
  s.target = j.at("target").get<std::string>();
  s.pattern = ParsePattern(j.at("pattern").get<std::string>());
  s.rw = ParseDirection(j.at("rw").get<std::string>());
  s.engine = ParseEngine(j.at("engine").get<std::string>());
  s.bs = j.at("bs").get<uint64_t>();
  s.iodepth = j.at("iodepth").get<uint32_t>();
  s.reap = ParseReap(j.value("reap", std::string("wait")));
  s.numjobs = j.value("numjobs", uint32_t{1});
  s.numjobs_split = j.value("numjobs_split", false);
  s.offset = j.value("offset", uint64_t{0});
  s.size = j.value("size", uint64_t{0});
  s.runtime_s = j.value("runtime_s", 0.0);
  s.io_limit = j.value("io_limit", uint64_t{0});
  s.direct = j.value("direct", true);
  s.gappy_read = j.value("gappy_read", uint32_t{1});
  s.gappy_skip = j.value("gappy_skip", uint32_t{1});
  s.seed = j.value("seed", uint64_t{1});
  s.cache = ParseCacheState(j.value("cache", std::string("cold")));
  s.fsync_every = j.value("fsync_every", uint32_t{0});
  s.end_fsync = j.value("end_fsync", false);
  s.inflight_sample_ms = j.value("inflight_sample_ms", uint32_t{10});
  s.stats_sample_ms = j.value("stats_sample_ms", uint32_t{100});
  s.read_pct = j.value("read_pct", uint32_t{100});
  s.stride_blocks = j.value("stride_blocks", uint32_t{2});
  s.distribution = ParseDistribution(j.value("distribution", std::string("uniform")));
  s.zipf_theta = j.value("zipf_theta", 1.2);
  s.hot_fraction = j.value("hot_fraction", 0.2);
  s.hot_pct = j.value("hot_pct", 80.0);
  s.fadvise = ParseAccessHint(j.value("fadvise", std::string("none")));
  s.madvise = ParseAccessHint(j.value("madvise", std::string("none")));
  s.mmap_window = j.value("mmap_window", uint64_t{0});
  s.verify = j.value("verify", false);
  s.cached_fraction = j.value("cached_fraction", 0.0);
  s.tunables = j.value("tunables", BlockTunables{});
  s.filesystem = j.value("filesystem", std::string());
  s.fs_file = j.value("fs_file", std::string("storbed.dat"));
  if (!s.filesystem.empty() && s.filesystem != "ext4" && s.filesystem != "xfs")
    throw std::invalid_argument("filesystem must be \"\", \"ext4\" or \"xfs\", got \"" +
                                s.filesystem + "\"");
  if (!s.filesystem.empty() &&
      (s.fs_file.empty() || s.fs_file[0] == '/' || s.fs_file.find("..") != std::string::npos))
    throw std::invalid_argument("fs_file must be a relative path inside the filesystem without "
                                "\"..\", got \"" + s.fs_file + "\"");
  if (s.read_pct > 100) throw std::invalid_argument("read_pct must be 0..100");
  if (s.stride_blocks == 0) throw std::invalid_argument("stride_blocks must be at least 1");
  if (s.cached_fraction < 0 || s.cached_fraction > 1)
    throw std::invalid_argument("cached_fraction must be between 0 and 1");
  if (s.bs == 0 || s.bs % 512 != 0)
    throw std::invalid_argument("bs must be a nonzero multiple of 512, got " +
                                std::to_string(s.bs));
  if (s.iodepth == 0) throw std::invalid_argument("iodepth must be at least 1");
  if (s.numjobs < 1 || s.numjobs > 64)
    throw std::invalid_argument("numjobs must be 1..64, got " + std::to_string(s.numjobs));
  if (s.gappy_read == 0) throw std::invalid_argument("gappy_read must be at least 1");
}

}  // namespace storbed

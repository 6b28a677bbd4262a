#include "job.h"

#include "job_fields.h"

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
                                                               {CacheState::ColdGlobal, "cold-global"},
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
std::string ToString(Engine e) {
  return e > kLastEngine ? "?" : RowOf(e).name;  // "?" ends EnumNames<Engine>
}
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
  j = nlohmann::json{{"schema_version", kJobSchemaVersion}};
  RowsToJson(JobRows(), s, j);
}

namespace {

// The cross-field rules a job from any source must meet (the agent refuses the rest).
void CheckJob(const JobSpec& s) {
  auto name = [](auto member) { return JobRow(member).spec.name; };
  const std::string fs = name(&JobSpec::filesystem), fs_file = name(&JobSpec::fs_file);
  if (!s.filesystem.empty() && s.filesystem != "ext4" && s.filesystem != "xfs")
    throw std::invalid_argument(fs + " must be \"\", \"ext4\" or \"xfs\", got \"" +
                                s.filesystem + "\"");
  if (!s.filesystem.empty() &&
      (s.fs_file.empty() || s.fs_file[0] == '/' || s.fs_file.find("..") != std::string::npos))
    throw std::invalid_argument(fs_file + " must be a relative path inside the filesystem "
                                "without \"..\", got \"" + s.fs_file + "\"");
  if (s.read_pct > 100) throw std::invalid_argument(name(&JobSpec::read_pct) + " must be 0..100");
  if (s.stride_blocks == 0)
    throw std::invalid_argument(name(&JobSpec::stride_blocks) + " must be at least 1");
  if (s.cached_fraction < 0 || s.cached_fraction > 1)
    throw std::invalid_argument(name(&JobSpec::cached_fraction) + " must be between 0 and 1");
  if (s.bs == 0 || s.bs % 512 != 0)
    throw std::invalid_argument(name(&JobSpec::bs) + " must be a nonzero multiple of 512, got " +
                                std::to_string(s.bs));
  if (s.iodepth == 0) throw std::invalid_argument(name(&JobSpec::iodepth) + " must be at least 1");
  if (s.numjobs < 1 || s.numjobs > 64)
    throw std::invalid_argument(name(&JobSpec::numjobs) + " must be 1..64, got " +
                                std::to_string(s.numjobs));
  if (s.gappy_read == 0)
    throw std::invalid_argument(name(&JobSpec::gappy_read) + " must be at least 1");
  if (s.random_run == 0)
    throw std::invalid_argument(name(&JobSpec::random_run) + " must be at least 1");
  if (s.random_run > 1 && (s.pattern != Pattern::Random || s.distribution != Distribution::Uniform))
    throw std::invalid_argument(name(&JobSpec::random_run) + " applies to pattern random with "
                                "the uniform distribution only");
  if (s.loops == 0) throw std::invalid_argument(name(&JobSpec::loops) + " must be at least 1");
  if (s.invalidate_each_pass && s.cache != CacheState::Cold && s.cache != CacheState::ColdGlobal)
    throw std::invalid_argument(name(&JobSpec::invalidate_each_pass) + " needs " +
                                name(&JobSpec::cache) + " cold or cold-global (the first pass "
                                "starts cold like the others), got " + ToString(s.cache));
}

}  // namespace

void from_json(const nlohmann::json& in, JobSpec& s) {
  const nlohmann::json j = UpgradeJobJson(in);
  // Required on the wire although a scenario has defaults for them: a job without them
  // is a broken document, not a request for the defaults.
  for (const auto* row : {&JobRow(&JobSpec::pattern), &JobRow(&JobSpec::rw),
                          &JobRow(&JobSpec::engine), &JobRow(&JobSpec::bs),
                          &JobRow(&JobSpec::iodepth)})
    (void)j.at(row->spec.name);
  s = JobSpec{};  // a member the document leaves out takes its default, not the old value
  RowsFromJson(JobRows(), j, s);
  CheckJob(s);
}

}  // namespace storbed

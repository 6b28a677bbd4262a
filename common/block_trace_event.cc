#include "block_trace_event.h"

#include <charconv>
#include <vector>

namespace storbed {
namespace {

constexpr const char* kNames[kBlockEventKinds] = {"block_bio_queue", "block_getrq",
                                                  "block_rq_insert", "block_rq_issue",
                                                  "block_rq_complete"};

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

template <typename T>
bool Number(std::string_view s, T* out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// "3.978438" (any number of fraction digits) in ns.
bool Seconds(std::string_view s, uint64_t* ns) {
  const size_t dot = s.find('.');
  uint64_t whole = 0, frac = 0;
  if (dot == std::string_view::npos || !Number(s.substr(0, dot), &whole)) return false;
  std::string_view digits = s.substr(dot + 1);
  if (digits.empty() || digits.size() > 9 || !Number(digits, &frac)) return false;
  for (size_t i = digits.size(); i < 9; ++i) frac *= 10;
  *ns = whole * 1000000000ull + frac;
  return true;
}

// The "[001]" before the timestamp that starts at `stamp_start`: the CPU. A task's name
// comes before it, so the last '[' before the stamp is the CPU's.
bool CpuBefore(std::string_view line, size_t stamp_start, int* cpu) {
  const size_t open = line.rfind('[', stamp_start);
  if (open == std::string_view::npos) return false;
  const size_t close = line.find(']', open);
  return close != std::string_view::npos && close < stamp_start &&
         Number(line.substr(open + 1, close - open - 1), cpu);
}

// The timestamp and CPU of the event whose ": name: " starts at `at`.
bool StampAndCpu(std::string_view line, size_t at, uint64_t* time_ns, int* cpu) {
  const size_t stamp_start = line.rfind(' ', at);
  return stamp_start != std::string_view::npos &&
         Seconds(line.substr(stamp_start + 1, at - stamp_start - 1), time_ns) &&
         CpuBefore(line, stamp_start, cpu);
}

}  // namespace

const char* TracepointName(BlockEventKind kind) { return kNames[int(kind)]; }

BlockTraceParseError::BlockTraceParseError(const std::string& line)
    : Error(ErrorKind::Host, "a block trace line does not parse: '" + line + "'") {}

std::optional<BlockEvent> ParseBlockEventLine(std::string_view line) {
  if (line.empty() || line[0] == '#') return std::nullopt;
  // The event's name follows the timestamp's ": "; task names may hold spaces, so the
  // line is read from the name outwards.
  size_t at = std::string_view::npos;
  int kind = -1;
  for (int k = 0; k < kBlockEventKinds && at == std::string_view::npos; ++k) {
    const std::string needle = std::string(": ") + kNames[k] + ": ";
    at = line.find(needle);
    if (at != std::string_view::npos) kind = k;
  }
  if (at == std::string_view::npos) return std::nullopt;
  const std::string text(line);
  BlockEvent e;
  e.kind = BlockEventKind(kind);
  if (!StampAndCpu(line, at, &e.time_ns, &e.cpu)) throw BlockTraceParseError(text);
  // dev rwbs ... sector + sectors ... [comm or error]; the comm may hold spaces.
  std::string_view args = line.substr(at + 2 + std::string_view(kNames[kind]).size() + 2);
  while (!args.empty() && (args.back() == ' ' || args.back() == '\n')) args.remove_suffix(1);
  const size_t bracket = args.rfind('[');
  if (bracket == std::string_view::npos || args.back() != ']') throw BlockTraceParseError(text);
  const std::string_view last = args.substr(bracket + 1, args.size() - bracket - 2);
  const std::vector<std::string_view> w = Words(args.substr(0, bracket));
  size_t plus = 0;
  for (size_t i = 2; i + 1 < w.size(); ++i)
    if (w[i] == "+") {
      plus = i;
      break;
    }
  const size_t comma = w.empty() ? std::string_view::npos : w[0].find(',');
  if (plus == 0 || comma == std::string_view::npos || !Number(w[0].substr(0, comma), &e.major) ||
      !Number(w[0].substr(comma + 1), &e.minor) || !Number(w[plus - 1], &e.sector) ||
      !Number(w[plus + 1], &e.sectors))
    throw BlockTraceParseError(text);
  const std::string_view rwbs = w[1];
  const bool read = rwbs.find('R') != std::string_view::npos;
  e.write = rwbs.find('W') != std::string_view::npos;
  e.data = (read || e.write) && e.sectors > 0;
  if (e.kind == BlockEventKind::RqComplete) {
    if (!Number(last, &e.error)) throw BlockTraceParseError(text);
  }
  return e;
}

std::optional<TraceMarker> ParseTraceMarkerLine(std::string_view line) {
  constexpr std::string_view kNeedle = ": tracing_mark_write: ";
  const size_t at = line.find(kNeedle);
  if (at == std::string_view::npos) return std::nullopt;
  TraceMarker m;
  if (!StampAndCpu(line, at, &m.time_ns, &m.cpu)) return std::nullopt;
  std::string_view text = line.substr(at + kNeedle.size());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  m.text = std::string(text);
  return m;
}

}  // namespace storbed

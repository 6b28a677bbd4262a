#include "proc_parse.h"

#include <charconv>

namespace storbed {
namespace {

constexpr std::string_view kSpace = " \t\r\n";

// Splits off the next whitespace-separated word of `rest` (empty at the end).
std::string_view NextWord(std::string_view& rest) {
  const size_t b = rest.find_first_not_of(kSpace);
  if (b == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(b);
  const size_t e = rest.find_first_of(kSpace);
  const std::string_view word = rest.substr(0, e);
  rest.remove_prefix(e == std::string_view::npos ? rest.size() : e);
  return word;
}

bool ToUint(std::string_view word, uint64_t& value) {
  if (word.empty()) return false;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return ec == std::errc() && end == word.data() + word.size();
}

// Calls f(line) for each line of text (without the '\n').
template <typename F>
void ForEachLine(std::string_view text, F&& f) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    f(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

std::string Quoted(std::string_view s) { return "'" + std::string(s.substr(0, 80)) + "'"; }

}  // namespace

uint64_t ParseInflight(std::string_view text) {
  std::string_view rest = text;
  uint64_t reads = 0, writes = 0;
  if (!ToUint(NextWord(rest), reads) || !ToUint(NextWord(rest), writes) || !NextWord(rest).empty())
    throw ProcParseError("inflight: expected '<reads> <writes>', got " + Quoted(text));
  return reads + writes;
}

std::map<std::string, uint64_t> ParseMeminfo(std::string_view text,
                                             const std::vector<std::string>& keys) {
  std::map<std::string, uint64_t> out;
  ForEachLine(text, [&](std::string_view line) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string key(line.substr(0, colon));
    for (const auto& k : keys) {
      if (k != key) continue;
      std::string_view rest = line.substr(colon + 1);
      uint64_t kb = 0;
      if (!ToUint(NextWord(rest), kb))
        throw ProcParseError("/proc/meminfo: malformed line " + Quoted(line));
      out[key] = kb;
    }
  });
  for (const auto& k : keys)
    if (!out.count(k)) throw ProcParseError("/proc/meminfo: no '" + k + ":' line (truncated?)");
  return out;
}

std::map<std::string, uint64_t> ParseVmstat(std::string_view text,
                                            const std::vector<std::string>& required,
                                            const std::vector<std::string>& optional) {
  std::map<std::string, uint64_t> out;
  ForEachLine(text, [&](std::string_view line) {
    std::string_view rest = line;
    const std::string_view key = NextWord(rest);
    bool wanted = false;
    for (const auto* list : {&required, &optional})
      for (const auto& k : *list) wanted = wanted || k == key;
    if (!wanted) return;
    uint64_t v = 0;
    if (!ToUint(NextWord(rest), v))
      throw ProcParseError("/proc/vmstat: malformed line " + Quoted(line));
    out[std::string(key)] = v;
  });
  for (const auto& k : required)
    if (!out.count(k)) throw ProcParseError("/proc/vmstat: no '" + k + "' line (truncated?)");
  return out;
}

std::vector<CpuTimes> ParseCpuTimes(std::string_view text) {
  std::vector<CpuTimes> out;
  ForEachLine(text, [&](std::string_view line) {
    std::string_view rest = line;
    const std::string_view name = NextWord(rest);
    if (name.size() <= 3 || name.substr(0, 3) != "cpu") return;
    CpuTimes t;
    uint64_t cpu = 0;
    if (!ToUint(name.substr(3), cpu))
      throw ProcParseError("/proc/stat: malformed cpu name in " + Quoted(line));
    t.cpu = int(cpu);
    // user nice system idle iowait irq softirq steal [guest guest_nice]
    for (int field = 0; field < 8; ++field) {
      uint64_t v = 0;
      if (!ToUint(NextWord(rest), v))
        throw ProcParseError("/proc/stat: fewer than 8 numbers in " + Quoted(line));
      t.total += v;
      if (field == 4) t.iowait = v;
    }
    out.push_back(t);
  });
  if (out.empty()) throw ProcParseError("/proc/stat: no cpuN lines (truncated?)");
  return out;
}

}  // namespace storbed

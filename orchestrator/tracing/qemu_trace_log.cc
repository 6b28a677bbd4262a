#include "tracing/qemu_trace_log.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace storbed {
namespace {

template <typename T>
bool Parse(std::string_view s, T* out, int base = 10) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

// "1796422153.457264" in ns.
bool Stamp(std::string_view s, uint64_t* ns) {
  const size_t dot = s.find('.');
  uint64_t sec = 0, frac = 0;
  if (dot == std::string_view::npos || !Parse(s.substr(0, dot), &sec)) return false;
  const std::string_view digits = s.substr(dot + 1);
  if (digits.empty() || digits.size() > 9 || !Parse(digits, &frac)) return false;
  for (size_t i = digits.size(); i < 9; ++i) frac *= 10;
  *ns = sec * 1000000000ull + frac;
  return true;
}

}  // namespace

std::optional<uint64_t> QemuTraceEvent::Number(std::string_view arg) const {
  const auto it = args.find(arg);
  if (it == args.end()) return std::nullopt;
  std::string_view v = it->second;
  uint64_t n = 0;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
    return Parse(v.substr(2), &n, 16) ? std::optional(n) : std::nullopt;
  return Parse(v, &n) ? std::optional(n) : std::nullopt;
}

std::string_view QemuTraceEvent::Text(std::string_view arg) const {
  const auto it = args.find(arg);
  return it == args.end() ? std::string_view() : std::string_view(it->second);
}

QemuTraceParseError::QemuTraceParseError(const std::string& line)
    : Error(ErrorKind::Host, "a QEMU trace line does not parse: '" + line + "'") {}

std::optional<QemuTraceEvent> ParseQemuTraceLine(std::string_view line) {
  const size_t at = line.find('@');
  const size_t colon = line.find(':');
  if (at == std::string_view::npos || colon == std::string_view::npos || at > colon)
    return std::nullopt;
  QemuTraceEvent e;
  if (!Parse(line.substr(0, at), &e.thread) ||
      !Stamp(line.substr(at + 1, colon - at - 1), &e.realtime_ns))
    return std::nullopt;  // QEMU's own messages ("qemu-system-x86_64: ...")
  const std::string_view rest = line.substr(colon + 1);
  const size_t space = rest.find(' ');
  e.name = std::string(rest.substr(0, space));
  if (e.name.empty()) throw QemuTraceParseError(std::string(line));
  std::string_view args = space == std::string_view::npos ? "" : rest.substr(space + 1);
  // "name value" pairs; a value may be quoted ('' or 'NVME_NVM_CMD_READ').
  while (!args.empty()) {
    while (!args.empty() && args.front() == ' ') args.remove_prefix(1);
    if (args.empty()) break;
    const size_t key_end = args.find(' ');
    if (key_end == std::string_view::npos) throw QemuTraceParseError(std::string(line));
    const std::string key(args.substr(0, key_end));
    args.remove_prefix(key_end + 1);
    std::string value;
    if (!args.empty() && args.front() == '\'') {
      const size_t close = args.find('\'', 1);
      if (close == std::string_view::npos) throw QemuTraceParseError(std::string(line));
      value = std::string(args.substr(1, close - 1));
      args.remove_prefix(close + 1);
    } else {
      const size_t end = args.find(' ');
      value = std::string(args.substr(0, end));
      if (value.empty()) throw QemuTraceParseError(std::string(line));
      args.remove_prefix(end == std::string_view::npos ? args.size() : end);
    }
    e.args.emplace(key, std::move(value));
  }
  return e;
}

QemuTraceRead ReadQemuTraceLog(const std::string& path, uint64_t from,
                               const std::vector<std::string>& wanted) {
  QemuTraceRead r;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read QEMU's trace log " + path + ": " + std::strerror(errno));
  in.seekg(std::streamoff(from));
  r.end_offset = from;
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline yet: QEMU may still be writing it
    r.end_offset += line.size() + 1;
    try {
      std::optional<QemuTraceEvent> e = ParseQemuTraceLine(line);
      if (!e || (!wanted.empty() &&
                 std::find(wanted.begin(), wanted.end(), e->name) == wanted.end())) {
        ++r.other_lines;
        continue;
      }
      r.events.push_back(std::move(*e));
    } catch (const QemuTraceParseError& err) {
      if (r.complete) r.why_incomplete = err.what();
      r.complete = false;
    }
  }
  return r;
}

}  // namespace storbed

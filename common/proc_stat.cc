#include "proc_stat.h"

#include <sstream>
#include <vector>

namespace storbed {

std::optional<ProcStat> ParseProcStat(const std::string& line) {
  // comm is free text in parentheses ("(qemu (x) y)"): the last ')' ends it.
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcStat stat;
  try {
    stat.pid = std::stoi(line.substr(0, open));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  stat.comm = line.substr(open + 1, close - open - 1);
  // After comm: field 3 (state) onwards, space separated.
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  constexpr size_t kStartTimeIndex = 22 - 3;
  if (fields.size() <= kStartTimeIndex || fields[0].size() != 1) return std::nullopt;
  stat.state = fields[0][0];
  try {
    stat.ppid = std::stoi(fields[1]);
    stat.start_ticks = std::stoull(fields[kStartTimeIndex]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return stat;
}

}  // namespace storbed

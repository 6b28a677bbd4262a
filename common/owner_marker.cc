#include "owner_marker.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "proc_stat.h"
#include "strict_json.h"

namespace storbed {

OwnerMarker CurrentProcessOwner() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  const auto stat = ParseProcStat(line);
  if (!stat) throw std::runtime_error("cannot read /proc/self/stat: \"" + line + "\"");
  return OwnerMarker{.pid = stat->pid, .start_ticks = stat->start_ticks, .host = ThisHostName()};
}

std::string FormatOwnerMarker(const OwnerMarker& owner) {
  return nlohmann::json{{"pid", owner.pid},
                        {"start_ticks", owner.start_ticks},
                        {"host", owner.host},
                        {"program", "storbed"}}
             .dump() +
         "\n";
}

std::optional<OwnerMarker> ParseOwnerMarker(const std::string& text) {
  const auto j = ParseJsonOrDiscarded(text);
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer() ||
      !j.contains("start_ticks") || !j["start_ticks"].is_number_unsigned() || !j.contains("host") ||
      !j["host"].is_string() || !j.contains("program") || j["program"] != "storbed" ||
      !std::in_range<int>(j["pid"].get<int64_t>()))
    return std::nullopt;
  OwnerMarker owner{.pid = WholeNumber<int>(j["pid"]),
                    .start_ticks = WholeNumber<uint64_t>(j["start_ticks"]),
                    .host = j["host"].get<std::string>()};
  if (owner.pid <= 0) return std::nullopt;
  return owner;
}

bool OwnerRuns(const OwnerMarker& owner, const std::string& proc_root) {
  std::ifstream in(proc_root + "/" + std::to_string(owner.pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto stat = ParseProcStat(line);
  return stat && stat->start_ticks == owner.start_ticks;
}

void WriteOwnerMarker(const std::string& dir) {
  const std::string path = dir + "/" + kOwnerFileName;
  std::ofstream out(path, std::ios::trunc);
  out << FormatOwnerMarker(CurrentProcessOwner());
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace storbed

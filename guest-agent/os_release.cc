#include "os_release.h"

#include <sstream>

#include "file_read.h"

namespace storbed::agent {
namespace {

// os-release values are shell-like: "quoted", 'quoted' or bare; \" \\ \$ \` escapes
// inside double quotes.
std::string Unquote(std::string value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    const char quote = value.front();
    value = value.substr(1, value.size() - 2);
    if (quote == '"') {
      std::string out;
      for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) ++i;
        out += value[i];
      }
      return out;
    }
  }
  return value;
}

}  // namespace

OsRelease ParseOsRelease(const std::string& text) {
  OsRelease release;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    if (key == "PRETTY_NAME") release.pretty_name = Unquote(line.substr(eq + 1));
    if (key == "VERSION_ID") release.version_id = Unquote(line.substr(eq + 1));
  }
  return release;
}

OsRelease ReadOsRelease(const std::filesystem::path& root) {
  for (const char* file : {"etc/os-release", "usr/lib/os-release"}) {
    if (const std::optional<std::string> text = TryReadFile(root / file))
      return ParseOsRelease(*text);
  }
  return {};
}

}  // namespace storbed::agent

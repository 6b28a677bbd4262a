#include "queue_rules.h"

#include <fstream>
#include <map>
#include <sstream>

#include "file_read.h"

namespace storbed::agent {
namespace {

namespace fs = std::filesystem;

// `ATTR{name}=` or `ATTR{name}:=` assigns; `==` and `!=` only match.
bool Assigns(const std::string& line, const std::string& attr) {
  const std::string key = "ATTR{" + attr + "}";
  for (size_t at = line.find(key); at != std::string::npos; at = line.find(key, at + 1)) {
    size_t op = at + key.size();
    while (op < line.size() && line[op] == ' ') ++op;
    if (line.compare(op, 2, ":=") == 0) return true;
    if (op < line.size() && line[op] == '=' && (op + 1 >= line.size() || line[op + 1] != '='))
      return true;
  }
  return false;
}

std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

const std::vector<std::string>& UdevRulesDirs() {
  static const std::vector<std::string> dirs = {"etc/udev/rules.d", "run/udev/rules.d",
                                                "usr/local/lib/udev/rules.d",
                                                "usr/lib/udev/rules.d", "lib/udev/rules.d"};
  return dirs;
}

std::vector<QueueRule> QueueRulesIn(const std::string& file, const std::string& text) {
  std::vector<QueueRule> rules;
  std::istringstream in(text);
  std::string line;
  uint32_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string rule = Trimmed(line);
    if (rule.empty() || rule[0] == '#') continue;
    if (Assigns(rule, "queue/scheduler") || Assigns(rule, "queue/read_ahead_kb") ||
        Assigns(rule, "bdi/read_ahead_kb") || Assigns(rule, "queue/nr_requests") ||
        rule.find("blockdev --setra") != std::string::npos)
      rules.push_back({file, number, rule});
  }
  return rules;
}

std::vector<QueueRule> FindQueueRules(const fs::path& root) {
  // name -> its path in the first directory that has it (/lib may be /usr/lib's symlink:
  // the name is then already taken and the copy is not read twice).
  std::map<std::string, fs::path> effective;
  for (const std::string& dir : UdevRulesDirs()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root / dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".rules" && !effective.count(name))
        effective[name] = fs::path("/") / dir / name;
    }
  }
  std::vector<QueueRule> rules;
  for (const auto& [name, path] : effective) {  // udev reads them in lexical order of name
    const std::optional<std::string> text = TryReadFile(root / path.relative_path());
    if (!text) continue;
    for (auto& r : QueueRulesIn(path.string(), *text)) rules.push_back(std::move(r));
  }
  return rules;
}

std::string ReadTunedProfile(const fs::path& root) {
  std::ifstream in(root / "etc/tuned/active_profile");
  std::string profile;
  std::getline(in, profile);
  return Trimmed(profile);
}

}  // namespace storbed::agent

#include "reports/compare_environment.h"

#include <map>
#include <regex>

#include "reports/cells.h"

namespace storbed {
namespace {

using Items = std::map<std::string, std::string>;

// The manifest's items, flat: "environment" as it is, and "machine.<label>.<what>".
Items ItemsOf(const nlohmann::json& manifest) {
  Items items;
  // Copies: items() of a temporary would outlive it.
  const nlohmann::json environment = manifest.value("environment", nlohmann::json::object());
  const nlohmann::json machines = manifest.value("machines", nlohmann::json::object());
  for (const auto& [k, v] : environment.items()) items[k] = ParamText(v);
  for (const auto& [label, m] : machines.items()) {
    const std::string prefix = "machine." + label + ".";
    for (const char* key : {"guest_kernel", "accel", "agent_version", "qemu_version"})
      if (m.contains(key)) items[prefix + key] = ParamText(m[key]);
    if (m.contains("argv")) items[prefix + "argv"] = ArgvWithoutPaths(m["argv"]);
  }
  return items;
}

}  // namespace

std::string ArgvWithoutPaths(const nlohmann::json& argv) {
  static const std::regex kPath("/[^,= ]+");
  std::string out;
  for (const auto& a : argv)
    out += (out.empty() ? "" : " ") + std::regex_replace(ParamText(a), kPath, "<path>");
  return out;
}

bool Blocks(const EnvironmentDiff& d) { return d.gating && !d.allowed; }

std::vector<EnvironmentDiff> DiffEnvironments(const nlohmann::json& base_manifest,
                                              const nlohmann::json& cand_manifest,
                                              const std::vector<std::string>& allowed) {
  auto is_allowed = [&](const std::string& item) {
    for (const auto& a : allowed)
      if (item == a || item.rfind(a + ".", 0) == 0) return true;
    return false;
  };
  std::vector<EnvironmentDiff> out;
  for (const auto* m : {&base_manifest, &cand_manifest})
    if (!m->contains("environment"))
      out.push_back({"environment", base_manifest.contains("environment") ? "recorded" : "none",
                     cand_manifest.contains("environment") ? "recorded" : "none", true,
                     is_allowed("environment")});
  if (!out.empty()) {
    out.resize(1);
    return out;
  }
  const Items base = ItemsOf(base_manifest), cand = ItemsOf(cand_manifest);
  std::map<std::string, std::pair<std::string, std::string>> all;
  for (const auto& [k, v] : base) all[k] = {v, "(none)"};
  for (const auto& [k, v] : cand) {
    if (!all.count(k)) all[k].first = "(none)";
    all[k].second = v;
  }
  for (const auto& [item, values] : all)
    if (values.first != values.second)
      out.push_back({item, values.first, values.second, item.rfind("load.", 0) != 0,
                     is_allowed(item)});
  return out;
}

}  // namespace storbed

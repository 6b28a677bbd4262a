#include "reports/compare_environment.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "reports/cells.h"

namespace storbed {
namespace {

using Items = std::map<std::string, std::string>;

constexpr const char* kMachineItems[] = {"guest_kernel", "guest_kernel_sha256",
                                         "guest_kernel_config_sha256", "accel", "agent_version",
                                         "qemu_version", "argv"};

std::string MachineItem(const nlohmann::json& machine, const std::string& key) {
  if (!machine.contains(key)) return "";
  return key == "argv" ? ArgvWithoutPaths(machine[key]) : ParamText(machine[key]);
}

bool IsAllowed(const std::vector<std::string>& allowed, const std::string& item) {
  for (const auto& a : allowed)
    if (item == a || item.rfind(a + ".", 0) == 0) return true;
  return false;
}

// True when the --by factor changes `item` by design.
bool FactorExplains(const std::string& by, const std::string& item) {
  if (item.rfind("guest_kernel", 0) == 0)
    return by == "machine.kernel" || by == "machine.modules_dir";
  if (item == "argv")
    return by.rfind("machine.", 0) == 0 || by.rfind("disk.", 0) == 0 || IsTargetField(by);
  return false;
}

// Two argv items cut down to the options that differ ("latency-ns=10000000"), so a
// difference reads in one line; the full argv is in each manifest.
void OnlyTheDifference(EnvironmentDiff& d) {
  if (d.item.size() < 4 || d.item.compare(d.item.size() - 4, 4, "argv") != 0) return;
  auto parts = [](const std::string& argv) {
    std::vector<std::string> out;
    std::string part;
    for (const char c : argv + " ") {
      if (c == ' ' || c == ',') {
        if (!part.empty()) out.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
    return out;
  };
  const auto base = parts(d.base), cand = parts(d.cand);
  auto missing_from = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::string out;
    for (const auto& p : a)
      if (std::find(b.begin(), b.end(), p) == b.end()) out += (out.empty() ? "" : " ") + p;
    return out.empty() ? std::string("(nothing)") : out;
  };
  const std::string b = missing_from(base, cand), c = missing_from(cand, base);
  d.base = "..." + b + "...";
  d.cand = "..." + c + "...";
}

}  // namespace

Items EnvironmentItems(const nlohmann::json& manifest) {
  Items items;
  // Copies: items() of a temporary would outlive it.
  const nlohmann::json environment = manifest.value("environment", nlohmann::json::object());
  const nlohmann::json machines = manifest.value("machines", nlohmann::json::object());
  for (const auto& [k, v] : environment.items()) items[k] = ParamText(v);
  for (const auto& [label, m] : machines.items()) {
    const std::string prefix = "machine." + label + ".";
    for (const char* key : kMachineItems)
      if (m.contains(key)) items[prefix + key] = MachineItem(m, key);
  }
  return items;
}

std::string ArgvWithoutPaths(const nlohmann::json& argv) {
  static const std::regex kPath("/[^,= ]+");
  std::string out;
  bool name_next = false;
  for (const auto& a : argv) {
    const std::string text = ParamText(a);
    out += (out.empty() ? "" : " ") +
           (name_next ? std::string("<name>") : std::regex_replace(text, kPath, "<path>"));
    name_next = text == "-name";
  }
  return out;
}

std::vector<EnvironmentDiff> DiffSidesOfOneRun(const nlohmann::json& manifest,
                                               const std::vector<std::string>& base_labels,
                                               const std::vector<std::string>& cand_labels,
                                               const std::string& by,
                                               const std::vector<std::string>& allowed) {
  const nlohmann::json machines = manifest.value("machines", nlohmann::json::object());
  auto values = [&](const std::vector<std::string>& labels, const std::string& key) {
    std::set<std::string> set;
    for (const auto& label : labels)
      if (machines.contains(label)) set.insert(MachineItem(machines[label], key));
    std::string text;
    for (const auto& v : set) text += (text.empty() ? "" : " | ") + v;
    return text.empty() ? std::string("(none)") : text;
  };
  std::vector<EnvironmentDiff> out;
  for (const std::string key : kMachineItems) {
    EnvironmentDiff d{"machine." + key, values(base_labels, key), values(cand_labels, key),
                      /*gating=*/true, /*allowed=*/false, /*why_allowed=*/""};
    if (d.base == d.cand) continue;
    OnlyTheDifference(d);
    if (FactorExplains(by, key)) d.why_allowed = "the --by factor";
    else if (IsAllowed(allowed, d.item)) d.why_allowed = "--allow-diff";
    d.allowed = !d.why_allowed.empty();
    out.push_back(d);
  }
  return out;
}

bool Blocks(const EnvironmentDiff& d) { return d.gating && !d.allowed; }

std::vector<EnvironmentDiff> DiffEnvironments(const nlohmann::json& base_manifest,
                                              const nlohmann::json& cand_manifest,
                                              const std::vector<std::string>& allowed) {
  auto is_allowed = [&](const std::string& item) { return IsAllowed(allowed, item); };
  std::vector<EnvironmentDiff> out;
  for (const auto* m : {&base_manifest, &cand_manifest})
    if (!m->contains("environment"))
      out.push_back({"environment", base_manifest.contains("environment") ? "recorded" : "none",
                     cand_manifest.contains("environment") ? "recorded" : "none", true,
                     is_allowed("environment"), ""});
  if (!out.empty()) {
    out.resize(1);
    return out;
  }
  const Items base = EnvironmentItems(base_manifest), cand = EnvironmentItems(cand_manifest);
  std::map<std::string, std::pair<std::string, std::string>> all;
  for (const auto& [k, v] : base) all[k] = {v, "(none)"};
  for (const auto& [k, v] : cand) {
    if (!all.count(k)) all[k].first = "(none)";
    all[k].second = v;
  }
  for (const auto& [item, values] : all)
    if (values.first != values.second)
      out.push_back({item, values.first, values.second, item.rfind("load.", 0) != 0,
                     is_allowed(item), ""});
  for (EnvironmentDiff& d : out) {
    OnlyTheDifference(d);
    if (d.allowed) d.why_allowed = "--allow-diff";
  }
  return out;
}

}  // namespace storbed

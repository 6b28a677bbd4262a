#include "reports/boot_text.h"

#include <cstdio>
#include <optional>

#include "file_read.h"
#include "strict_json.h"

namespace storbed {
namespace {

// The parts in boot order, as boot_breakdown.h names them, and the words the line uses.
constexpr struct {
  const char* key;
  const char* words;
} kParts[] = {{"before_kernel_s", "before kernel"},
              {"kernel_to_init_s", "kernel to init"},
              {"modules_s", "modules"},
              {"devices_s", "devices"},
              {"agent_s", "agent"}};

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", s);
  return text;
}

}  // namespace

std::string RenderBoots(const nlohmann::json& manifest) {
  if (!manifest.is_object() || !manifest.contains("machines") || !manifest["machines"].is_object())
    return "";
  std::string lines;
  for (const auto& [label, machine] : manifest["machines"].items()) {
    if (!machine.is_object() || !machine.contains("boot")) continue;
    const nlohmann::json& boot = machine["boot"];
    if (!boot.contains("hello_s") || !boot["hello_s"].is_number()) continue;
    std::string line = "  " + label + "  " + Seconds(boot["hello_s"].get<double>());
    std::string parts;
    for (const auto& part : kParts) {
      if (!boot.contains(part.key) || !boot[part.key].is_number()) continue;
      parts += (parts.empty() ? " = " : " + ") + Seconds(boot[part.key].get<double>()) + " " +
               part.words;
    }
    lines += line + (parts.empty() ? " (no breakdown from the agent)" : parts) + "\n";
  }
  if (lines.empty()) return "";
  return "boot (s, QEMU start to agent hello)\n" + lines;
}

std::string RenderBootsOfDir(const std::string& dir) {
  const std::optional<std::string> text = TryReadFile(dir + "/manifest.json");
  if (!text) return "";
  const nlohmann::json manifest = ParseJsonOrDiscarded(*text);
  return manifest.is_discarded() ? "" : RenderBoots(manifest);
}

}  // namespace storbed

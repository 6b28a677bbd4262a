// The environment section: what ran where, from manifest.json.

#include <optional>

#include "file_read.h"
#include "reports/cells.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "strict_json.h"

namespace storbed {
namespace {

// A manifest value as text; "" when absent.
std::string Text(const nlohmann::json& doc, const std::string& key) {
  return doc.is_object() && doc.contains(key) && !doc[key].is_null() ? ParamText(doc[key]) : "";
}

std::string RunTable(const nlohmann::json& m) {
  std::vector<std::vector<std::string>> rows;
  auto add = [&rows](const std::string& what, const std::string& value) {
    if (!value.empty()) rows.push_back({what, value});
  };
  add("scenario file", Text(m, "scenario_file"));
  add("started", Text(m, "started_at"));
  add("finished", Text(m, "finished_at"));
  const nlohmann::json host = m.value("host", nlohmann::json::object());
  add("storbed", Text(host, "storbed_version") + " (" + Text(host, "git_revision") + ")");
  add("host", Text(host, "hostname"));
  if (m.contains("accel"))
    add("accelerator", Text(m["accel"], "accel") + ": " + Text(m["accel"], "reason"));
  add("QEMU on this host", Text(m, "qemu_version"));
  if (m.value("interrupted", false)) add("interrupted", "yes: the run was stopped with Ctrl-C");
  return HtmlTable({"run", "value"}, rows);
}

// The environment fingerprint `storbed compare` gates on, item by item.
std::string FingerprintTable(const nlohmann::json& m) {
  std::vector<std::vector<std::string>> rows;
  // A copy: items() of a temporary would outlive it.
  const nlohmann::json environment = m.value("environment", nlohmann::json::object());
  for (const auto& [item, value] : environment.items()) rows.push_back({item, ParamText(value)});
  if (rows.empty())
    return HtmlParagraph(
        "The manifest has no environment fingerprint (results from before "
        "storbed recorded one).",
        "note");
  return HtmlTable({"item", "value"}, rows);
}

std::string MachinesTable(const nlohmann::json& m) {
  std::vector<std::vector<std::string>> rows;
  const nlohmann::json machines = m.value("machines", nlohmann::json::object());
  for (const auto& [label, entry] : machines.items())
    rows.push_back({label, Text(entry, "guest_kernel"), Text(entry, "accel"),
                    Text(entry, "qemu_version"), Text(entry, "agent_version"), Text(entry, "host"),
                    Text(entry, "backend")});
  // The bare-metal twin runs the host's own kernel, no QEMU.
  const std::string host_kernel = Text(m.value("host", nlohmann::json::object()), "kernel_release");
  for (const auto& unit : m.value("bare_metal", nlohmann::json::array()))
    rows.push_back({"bare metal " + Text(unit, "device"), host_kernel + " (host)", "host", "-", "-",
                    "local", "none"});
  if (rows.empty()) return "";
  return HtmlHeading("Machines") +
         HtmlTable({"machine", "guest kernel", "accel", "QEMU version", "agent", "host", "backend"},
                   rows);
}

}  // namespace

std::string EnvironmentSectionHtml(const ReportInput& input) {
  const std::string path = input.dir + "/manifest.json";
  const std::optional<std::string> text = TryReadFile(path);
  if (!text)
    return HtmlParagraph("No manifest.json in " + input.dir + ": the environment is unknown.",
                         "note");
  nlohmann::json m;
  try {
    m = ParseJson(*text);
  } catch (const std::exception& e) {
    return HtmlParagraph(path + " is malformed: " + e.what(), "note");
  }
  if (!m.is_object()) return HtmlParagraph(path + " is not a JSON object.", "note");
  return RunTable(m) + HtmlHeading("Environment fingerprint") + FingerprintTable(m) +
         MachinesTable(m);
}

}  // namespace storbed

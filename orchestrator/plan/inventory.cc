#include "plan/inventory.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "input_file.h"
#include "scenario/name_rule.h"
#include "strict_json.h"

namespace storbed {
namespace {

using nlohmann::json;

[[noreturn]] void Fail(const std::string& path, const std::string& field,
                       const std::string& reason) {
  throw InventoryError(path + ": " + field + ": " + reason);
}

std::string KnownFields() {
  std::string out;
  for (const auto& f : InventoryFields()) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

std::string String(const json& v, const std::string& path, const std::string& field) {
  if (!v.is_string()) Fail(path, field, "expected a string, got " + v.dump());
  if (v.get<std::string>().empty()) Fail(path, field, "must not be empty");
  return v.get<std::string>();
}

InventoryHost ParseHost(const json& in, const std::string& path, const std::string& where) {
  if (!in.is_object()) Fail(path, where, "must be a JSON object");
  // A named key, not a structured binding: clang 14 (the sanitizer build) cannot capture one.
  for (const auto& item : in.items()) {
    const std::string& key = item.key();
    const auto& fields = InventoryFields();
    if (std::none_of(fields.begin(), fields.end(), [&](const auto& f) { return key == f.name; }))
      Fail(path, where + "." + key, "unknown field (known: " + KnownFields() + ")");
  }
  for (const auto& f : InventoryFields())
    if (f.required && !in.contains(f.name))
      Fail(path, where + "." + f.name, "required field is missing");
  InventoryHost host;
  host.name = String(in.at("name"), path, where + ".name");
  if (const std::string why = NameProblem(host.name); !why.empty())
    Fail(path, where + ".name", why);
  host.uri = String(in.at("uri"), path, where + ".uri");
  if (in.contains("max_guests")) {
    const json& v = in.at("max_guests");
    // Each guest slot is a thread and a guest's memory: 256 is far above any host here,
    // and a bound keeps 4294967296 from wrapping to 0 in a uint32_t.
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > kMaxGuestsPerHost)
      Fail(path, where + ".max_guests", "expected an integer from 1 to " +
                                            std::to_string(kMaxGuestsPerHost) + ", got " + v.dump());
    host.max_guests = static_cast<uint32_t>(v.get<int64_t>());
  }
  if (in.contains("labels")) {
    const json& v = in.at("labels");
    if (!v.is_array()) Fail(path, where + ".labels", "expected a list of strings, got " + v.dump());
    for (size_t i = 0; i < v.size(); ++i)
      host.labels.push_back(String(v[i], path, where + ".labels[" + std::to_string(i) + "]"));
  }
  if (in.contains("pool_dir")) {
    host.pool_dir = String(in.at("pool_dir"), path, where + ".pool_dir");
    if (host.pool_dir[0] != '/')
      Fail(path, where + ".pool_dir", "must be an absolute path on that host, got " +
                                          in.at("pool_dir").dump());
  }
  return host;
}

}  // namespace

const std::vector<InventoryField>& InventoryFields() {
  static const std::vector<InventoryField> fields = {
      {"name", "string", true, "Unique name; results and the table's host column use it."},
      {"uri", "string", true, "libvirt URI, e.g. qemu+ssh://lab1/system or qemu:///system."},
      {"max_guests", "integer", false, "Guests this host runs at once (default 1, 1 to 256)."},
      {"labels", "list of strings", false, "Tags for `--host-label` to pick hosts by."},
      {"pool_dir", "string", false,
       "Directory of the storbed storage pool on that host (default /var/lib/storbed/pool)."},
  };
  return fields;
}

Inventory ParseInventory(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = ParseJsonNoDuplicateKeys(text);
  } catch (const std::invalid_argument& e) {
    throw InventoryError(path + ": " + e.what());
  }
  if (!doc.is_object()) Fail(path, "(top level)", "must be a JSON object with a \"hosts\" list");
  for (const auto& [key, value] : doc.items())
    if (key != "hosts") Fail(path, key, "unknown field (known: hosts)");
  if (!doc.contains("hosts")) Fail(path, "hosts", "required field is missing");
  const json& hosts = doc.at("hosts");
  if (!hosts.is_array() || hosts.empty()) Fail(path, "hosts", "expected a non-empty list of hosts");
  Inventory inventory;
  inventory.path = path;
  std::set<std::string> names;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string where = "hosts[" + std::to_string(i) + "]";
    InventoryHost host = ParseHost(hosts[i], path, where);
    if (!names.insert(host.name).second)
      Fail(path, where + ".name", "\"" + host.name + "\" is used by an earlier host");
    inventory.hosts.push_back(std::move(host));
  }
  return inventory;
}

Inventory LoadInventory(const std::string& path) {
  try {
    return ParseInventory(ReadInputFile(path, "inventory"), path);
  } catch (const InputFileError& e) {
    throw InventoryError(e.what());
  }
}

Inventory SelectHosts(const Inventory& inventory, const std::string& label) {
  if (label.empty()) return inventory;
  Inventory out{inventory.path, {}};
  for (const auto& h : inventory.hosts)
    if (std::find(h.labels.begin(), h.labels.end(), label) != h.labels.end())
      out.hosts.push_back(h);
  if (out.hosts.empty())
    throw InventoryError(inventory.path + ": no host has the label \"" + label + "\"");
  return out;
}

}  // namespace storbed

// The hosts a run may use (`storbed run --inventory FILE`): libvirt URIs with how many
// guests each may run at once and labels to pick a subset by.
//   {"hosts": [{"name": "lab1", "uri": "qemu+ssh://lab1/system", "max_guests": 1,
//               "labels": ["nvme"], "pool_dir": "/var/lib/storbed/pool"}]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace storbed {

// A bad inventory is bad input like a bad scenario (exit 2): "FILE: FIELD: reason".
class InventoryError : public ScenarioError {
 public:
  using ScenarioError::ScenarioError;
};

// Guest slots one inventory host may have (each a thread and a running guest).
inline constexpr int64_t kMaxGuestsPerHost = 256;

struct InventoryHost {
  std::string name;                   // unique in the file; results name the host by it
  std::string uri;                    // libvirt URI
  uint32_t max_guests = 1;            // guests it runs at once, 1..kMaxGuestsPerHost
  std::vector<std::string> labels;
  std::string pool_dir;               // "" = the libvirt backend's default
};

struct Inventory {
  std::string path;
  std::vector<InventoryHost> hosts;
};

// One field of a host entry: the single declaration parsing, messages and docs use.
struct InventoryField {
  const char* name;
  const char* type;  // "string", "integer", "list of strings"
  bool required;
  const char* help;
};
const std::vector<InventoryField>& InventoryFields();

// Parses and validates. Throws InventoryError("PATH: hosts[1].uri: reason").
Inventory ParseInventory(const std::string& text, const std::string& path);
// Reads `path` and parses it. Throws InventoryError (also when it cannot be read).
Inventory LoadInventory(const std::string& path);

// The hosts carrying `label` ("" = all). Throws InventoryError when none does.
Inventory SelectHosts(const Inventory& inventory, const std::string& label);

}  // namespace storbed

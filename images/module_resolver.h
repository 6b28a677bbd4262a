// Resolves kernel module names into a load order using the kernel's modules.dep and
// modules.builtin, the same files modprobe reads.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace storbed {

struct ModuleFile {
  std::string name;  // normalised ('_' not '-'), e.g. "nvme_core"
  std::string path;  // relative to the modules dir as in modules.dep, e.g. ".../nvme-core.ko.xz"
};

struct ModulePlan {
  std::vector<ModuleFile> load_order;  // dependencies before their users, each once
  std::vector<std::string> builtin;    // requested or needed, but built into the kernel
};

// "nvme-core" -> "nvme_core": the kernel treats '-' and '_' in module names as the same.
std::string NormalizeModuleName(std::string_view name);

// "kernel/drivers/nvme/host/nvme-core.ko.zst" -> "nvme_core".
std::string ModuleNameFromPath(std::string_view path);

class ModuleIndex {
 public:
  // Parses modules.dep and modules.builtin text. `dep_path` only names the file in errors.
  // Throws ImageError on a malformed modules.dep line.
  static ModuleIndex Parse(std::string_view modules_dep, std::string_view modules_builtin,
                           std::string dep_path);
  // Reads modules_dir/modules.dep (required) and modules_dir/modules.builtin (optional).
  static ModuleIndex Load(const std::string& modules_dir);

  // The load order for `names` (any mix of '-' and '_'). Throws ImageError for an unknown
  // module (naming it and modules.dep) or a dependency cycle.
  ModulePlan Resolve(const std::vector<std::string>& names) const;

  bool IsBuiltin(std::string_view name) const;
  bool HasModule(std::string_view name) const;

 private:
  struct Entry {
    std::string path;
    std::vector<std::string> deps;  // normalised names
  };
  void Visit(const std::string& name, const std::string& needed_by, ModulePlan& plan,
             std::map<std::string, int>& state, std::vector<std::string>& stack) const;

  std::string dep_path_;
  std::map<std::string, Entry> modules_;
  std::set<std::string> builtin_;
};

}  // namespace storbed

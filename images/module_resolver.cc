#include "images/module_resolver.h"

#include <algorithm>
#include <sstream>

#include "images/file_io.h"
#include "images/image_error.h"

namespace storbed {
namespace {

constexpr std::string_view kSuffixes[] = {".ko.xz", ".ko.zst", ".ko.gz", ".ko"};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// Calls fn(line_number, line) for each non-blank, non-comment line.
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  int number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    if (!line.empty() && line[0] != '#') fn(number, line);
  }
}

bool HasModuleSuffix(std::string_view path) {
  for (std::string_view suffix : kSuffixes) {
    if (path.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace

std::string NormalizeModuleName(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::string ModuleNameFromPath(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view suffix : kSuffixes) {
    if (base.ends_with(suffix)) {
      base.remove_suffix(suffix.size());
      break;
    }
  }
  return NormalizeModuleName(base);
}

ModuleIndex ModuleIndex::Parse(std::string_view modules_dep, std::string_view modules_builtin,
                               std::string dep_path) {
  ModuleIndex index;
  index.dep_path_ = std::move(dep_path);
  ForEachLine(modules_dep, [&](int number, std::string_view line) {
    size_t colon = line.find(':');
    std::string_view path = Trim(line.substr(0, colon));
    if (colon == std::string_view::npos || !HasModuleSuffix(path)) {
      std::ostringstream msg;
      msg << index.dep_path_ << " line " << number << " is not \"<module>.ko: <deps>\": \"" << line
          << "\"";
      throw ImageError(index.dep_path_, msg.str());
    }
    Entry entry{.path = std::string(path), .deps = {}};
    for (std::string_view dep : SplitWords(line.substr(colon + 1))) {
      entry.deps.push_back(ModuleNameFromPath(dep));
    }
    index.modules_[ModuleNameFromPath(path)] = std::move(entry);
  });
  ForEachLine(modules_builtin,
              [&](int, std::string_view line) { index.builtin_.insert(ModuleNameFromPath(line)); });
  return index;
}

ModuleIndex ModuleIndex::Load(const std::string& modules_dir) {
  std::string dep_path = modules_dir + "/modules.dep";
  return Parse(ReadFileBytes(dep_path), ReadOptionalFile(modules_dir + "/modules.builtin"),
               dep_path);
}

bool ModuleIndex::IsBuiltin(std::string_view name) const {
  return builtin_.count(NormalizeModuleName(name)) > 0;
}

bool ModuleIndex::HasModule(std::string_view name) const {
  return modules_.count(NormalizeModuleName(name)) > 0;
}

ModulePlan ModuleIndex::Resolve(const std::vector<std::string>& names) const {
  ModulePlan plan;
  std::map<std::string, int> state;  // absent: unseen, 1: on the stack, 2: placed
  std::vector<std::string> stack;
  for (const std::string& name : names) Visit(NormalizeModuleName(name), "", plan, state, stack);
  return plan;
}

// Depth-first, placing a module after all its dependencies. modules.dep already lists the
// transitive closure on each line, but recursing on each dependency's own line is what makes
// the order right among the dependencies themselves (virtio before virtio_ring's users).
void ModuleIndex::Visit(const std::string& name, const std::string& needed_by, ModulePlan& plan,
                        std::map<std::string, int>& state, std::vector<std::string>& stack) const {
  auto seen = state.find(name);
  if (seen != state.end()) {
    if (seen->second == 2) return;
    std::string cycle;
    auto from = std::find(stack.begin(), stack.end(), name);
    for (auto it = from; it != stack.end(); ++it) cycle += *it + " -> ";
    throw ImageError(dep_path_, "module dependency cycle in " + dep_path_ + ": " + cycle + name);
  }
  auto found = modules_.find(name);
  if (found == modules_.end()) {
    if (builtin_.count(name)) {
      state[name] = 2;
      plan.builtin.push_back(name);
      return;
    }
    std::string what =
        needed_by.empty() ? "module " + name : "module " + name + " (needed by " + needed_by + ")";
    throw ImageError(dep_path_, what + " is neither in " + dep_path_ +
                                    " nor built into the kernel: check the name or the kernel");
  }
  state[name] = 1;
  stack.push_back(name);
  for (const std::string& dep : found->second.deps) Visit(dep, name, plan, state, stack);
  stack.pop_back();
  state[name] = 2;
  plan.load_order.push_back(ModuleFile{.name = name, .path = found->second.path});
}

}  // namespace storbed

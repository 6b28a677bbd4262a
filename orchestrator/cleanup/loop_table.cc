#include "cleanup/loop_table.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace storbed {

std::vector<AttachedLoop> ReadAttachedLoops(const std::string& sys_root) {
  namespace fs = std::filesystem;
  std::vector<AttachedLoop> loops;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(sys_root) / "block", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("loop", 0) != 0) continue;
    std::ifstream in(entry.path() / "loop" / "backing_file");
    std::string backing;
    if (!std::getline(in, backing) || backing.empty()) continue;
    // The kernel appends " (deleted)" once the file is unlinked; the device still holds it.
    constexpr std::string_view kDeleted = " (deleted)";
    AttachedLoop loop{.device = "/dev/" + name, .backing_file = backing};
    if (backing.size() > kDeleted.size() && backing.ends_with(kDeleted)) {
      loop.backing_file.resize(backing.size() - kDeleted.size());
      loop.backing_deleted = true;
    }
    loops.push_back(std::move(loop));
  }
  std::sort(loops.begin(), loops.end(),
            [](const auto& a, const auto& b) { return a.device < b.device; });
  return loops;
}

}  // namespace storbed

#include "cleanup/stale_work_dirs.h"

#include <filesystem>
#include <optional>

#include "file_read.h"
#include "owner_marker.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

// A live process that has a file inside `dir` open, runs with a path inside it on its
// command line, or holds a loop device over a file inside it. nullptr when none does.
const ProcessInfo* UserOf(const std::string& dir, const WorkDirContext& context) {
  const std::string slash = dir + "/";
  for (const auto& p : context.processes.processes()) {
    for (const auto& arg : p.argv)
      if (arg.find(slash) != std::string::npos) return &p;
    for (const auto& file : p.open_files) {
      if (PathIsInside(file, dir)) return &p;
      for (const auto& loop : context.loops)
        if (file == loop.device && PathIsInside(loop.backing_file, dir)) return &p;
    }
  }
  return nullptr;
}

WorkDirVerdict Judge(const std::string& dir, const WorkDirContext& context) {
  WorkDirVerdict v{.path = dir, .state = WorkDirState::Live, .reason = ""};
  const std::string text = ReadFileOrEmpty(dir + "/" + kOwnerFileName);
  if (const auto owner = ParseOwnerMarker(text)) {
    const std::string pid = "owner pid " + std::to_string(owner->pid);
    if (owner->host != context.this_host) {
      v.state = WorkDirState::Elsewhere;
      v.reason =
          pid + " on host " + owner->host + ", which cannot be checked from " + context.this_host;
    } else if (context.processes.IsAlive(*owner)) {
      v.reason = pid + " running";
    } else {
      v.state = WorkDirState::Stale;
      v.reason = pid + " gone";
    }
    return v;
  }
  // No marker, or one storbed did not write: however old and unused, it may be a user's.
  if (const ProcessInfo* user = UserOf(dir, context)) {
    v.reason = "no owner mark; in use by pid " + std::to_string(user->pid);
  } else {
    v.reason = "no owner mark: not provably storbed's, left alone";
  }
  return v;
}

}  // namespace

std::vector<WorkDirVerdict> JudgeWorkDirs(const std::vector<std::string>& roots,
                                          const WorkDirContext& context) {
  std::vector<WorkDirVerdict> verdicts;
  for (const auto& root : roots) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      bool ours = false;
      for (const char* prefix : kTempDirPrefixes) ours = ours || name.rfind(prefix, 0) == 0;
      if (!ours) continue;
      // symlink_status: a link named storbed-work-x is not ours to follow or remove.
      std::error_code st_ec;
      if (!fs::is_directory(fs::symlink_status(entry.path(), st_ec))) continue;
      verdicts.push_back(Judge(fs::absolute(entry.path()).lexically_normal().string(), context));
    }
  }
  return verdicts;
}

std::vector<WorkDirVerdict> StaleOnly(const std::vector<WorkDirVerdict>& verdicts) {
  std::vector<WorkDirVerdict> out;
  for (const auto& v : verdicts)
    if (v.state == WorkDirState::Stale) out.push_back(v);
  return out;
}

}  // namespace storbed

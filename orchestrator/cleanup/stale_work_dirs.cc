#include "cleanup/stale_work_dirs.h"

#include <filesystem>
#include <optional>

#include "execute/owner_marker.h"
#include "file_read.h"

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
  if (const ProcessInfo* user = UserOf(dir, context)) {
    v.reason = "no owner file; in use by pid " + std::to_string(user->pid);
    return v;
  }
  std::error_code ec;
  const auto changed = fs::last_write_time(dir, ec);
  if (ec) {
    v.reason = "no owner file and its age is unknown: " + ec.message();
    return v;
  }
  const auto age = std::chrono::duration_cast<std::chrono::minutes>(
      context.now - std::chrono::file_clock::to_sys(changed));
  if (age < kUnmarkedMinAge) {
    v.reason = "no owner file; changed " + std::to_string(age.count()) + " min ago";
    return v;
  }
  v.state = WorkDirState::Stale;
  v.reason = "no owner file, unused, unchanged for " + std::to_string(age.count()) + " min";
  return v;
}

}  // namespace

std::vector<WorkDirVerdict> JudgeWorkDirs(const std::vector<std::string>& roots,
                                          const WorkDirContext& context) {
  std::vector<WorkDirVerdict> verdicts;
  for (const auto& root : roots) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      if (entry.path().filename().string().rfind(kWorkDirPrefix, 0) != 0) continue;
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

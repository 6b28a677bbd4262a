#include "images/initramfs.h"

#include <set>

#include "images/cpio_writer.h"
#include "images/image_error.h"

namespace storbed {
namespace {

// Directories the agent expects to mount on or write to before anything else exists.
constexpr std::string_view kBaseDirectories[] = {"dev", "proc",        "sys", "etc",  "etc/storbed",
                                                 "lib", "lib/modules", "tmp", "root", "run"};

uint32_t DirectoryMode(std::string_view dir) {
  if (dir == "tmp") return 01777;  // sticky, world-writable like any /tmp
  if (dir == "root") return 0700;
  return 0755;
}

// Adds `path` (no leading '/') and all its parents to `dirs`.
void AddWithParents(std::string_view path, std::set<std::string>& dirs) {
  for (size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    dirs.insert(std::string(path.substr(0, slash)));
  }
  dirs.insert(std::string(path));
}

}  // namespace

std::string InitramfsModulePath(std::string_view release, std::string_view relative) {
  return "/lib/modules/" + std::string(release) + "/" + std::string(relative);
}

uint64_t WriteInitramfs(const InitramfsContents& contents, std::ostream& out) {
  if (contents.release.empty() || contents.release.find('/') != std::string::npos) {
    throw ImageError(
        "", "kernel release \"" + contents.release + "\" cannot name a /lib/modules directory");
  }
  // A sorted set puts every parent before its children, as CpioWriter requires.
  std::set<std::string> dirs;
  for (std::string_view d : kBaseDirectories) dirs.insert(std::string(d));
  AddWithParents("lib/modules/" + contents.release, dirs);
  std::string module_list;
  for (const InitramfsModule& m : contents.modules) {
    std::string path = InitramfsModulePath(contents.release, m.path);
    size_t slash = path.rfind('/');
    AddWithParents(std::string_view(path).substr(1, slash - 1), dirs);
    module_list += path + "\n";
  }

  CpioWriter cpio(out);
  for (const std::string& d : dirs) cpio.AddDirectory(d, DirectoryMode(d));
  // The kernel opens /dev/console for PID 1's stdio before /init runs; without the node the
  // agent starts with no stdin/stdout/stderr at all (devtmpfs is mounted only later).
  cpio.AddCharDevice("/dev/console", 5, 1, 0600);
  cpio.AddFile("/init", contents.agent, 0755);
  cpio.AddFile(kInitramfsModuleList, module_list, 0644);
  cpio.AddFile(kInitramfsManifest, contents.manifest_json, 0644);
  for (const InitramfsModule& m : contents.modules) {
    cpio.AddFile(InitramfsModulePath(contents.release, m.path), m.bytes, 0644);
  }
  cpio.Finish();
  return cpio.bytes_written();
}

}  // namespace storbed

#include "libvirt/qemu_process.h"

#include <filesystem>
#include <iterator>

#include "file_read.h"

namespace storbed {

std::vector<std::string> ReadCmdline(const std::string& proc_root, int pid) {
  const std::string raw = ReadFileOrEmpty(proc_root + "/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> argv;
  size_t start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    argv.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

int FindDomainQemuPid(const std::string& proc_root, const std::string& domain_name) {
  const std::string exact = "guest=" + domain_name;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::stoi(name);
    for (const std::string& arg : ReadCmdline(proc_root, pid)) {
      // A comma in the name would be doubled; ours have none (DomainName checks).
      if (arg == exact || arg.rfind(exact + ",", 0) == 0) return pid;
    }
  }
  return -1;
}

}  // namespace storbed

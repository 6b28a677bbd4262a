#include "execute/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "version.h"

namespace storbed {

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

nlohmann::json DescribeHost() {
  utsname u{};
  uname(&u);
  std::string cpu = "unknown";
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  return {{"storbed_version", kStorbedVersion},
          {"git_revision", kGitRevision},
          {"hostname", u.nodename},
          {"kernel_release", u.release},
          {"kernel_version", u.version},
          {"machine", u.machine},
          {"cpu_model", cpu},
          {"online_cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"memory_bytes", static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE)}};
}

}  // namespace storbed

#include "thp_setting.h"

#include <fstream>

namespace storbed {
namespace {

std::string PathIn(const std::string& sys_root) {
  return sys_root + "/kernel/mm/transparent_hugepage/enabled";
}

bool Write(const std::string& path, const char* mode) {
  std::ofstream out(path);
  out << mode << '\n';
  out.flush();
  return bool(out);
}

}  // namespace

std::string ReadThpSetting(const std::string& sys_root) {
  std::ifstream in(PathIn(sys_root));
  std::string line;
  std::getline(in, line);
  return line;
}

ThpMadviseForJob::ThpMadviseForJob(bool wanted, const std::string& sys_root)
    : path_(PathIn(sys_root)) {
  if (!wanted || ReadThpSetting(sys_root).find("[never]") == std::string::npos) return;
  changed_ = Write(path_, "madvise");
}

ThpMadviseForJob::~ThpMadviseForJob() {
  if (changed_) Write(path_, "never");
}

}  // namespace storbed

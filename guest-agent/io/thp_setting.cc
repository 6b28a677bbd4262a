#include "thp_setting.h"

#include <fstream>

#include "kernel_attr.h"

namespace storbed {
namespace {

std::string PathIn(const std::string& sys_root) {
  return sys_root + "/kernel/mm/transparent_hugepage/enabled";
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
  changed_ = !WriteKernelAttr(path_, "madvise");
}

ThpMadviseForJob::~ThpMadviseForJob() {
  if (changed_) WriteKernelAttr(path_, "never");
}

}  // namespace storbed

#include "thp_setting.h"

#include "kernel_attr.h"
#include "sysfs_read.h"

namespace storbed {
namespace {

std::string PathIn(const std::string& sys_root) {
  return sys_root + "/kernel/mm/transparent_hugepage/enabled";
}

}  // namespace

std::string ReadThpSetting(const std::string& sys_root) {
  return ReadTrimmed(PathIn(sys_root)).value_or("");
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

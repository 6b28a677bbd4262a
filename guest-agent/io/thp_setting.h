// The kernel's transparent huge page mode (/sys/kernel/mm/transparent_hugepage/enabled),
// which decides whether huge_buffers' MADV_HUGEPAGE is honoured.
#pragma once

#include <string>

namespace storbed {

// The file's line, e.g. "always [madvise] never"; "" when it cannot be read.
std::string ReadThpSetting(const std::string& sys_root = "/sys");

// While alive: THP "madvise" where the mode was "never", so MADV_HUGEPAGE takes effect;
// the old mode is written back at the end. For guests only: the guest is the run's own,
// and a guest below 512 MiB boots with THP off. A host's mode is its owner's and is never
// touched. Does nothing where THP is already on or the file cannot be written: the
// result's huge_buffer_bytes then says what the job got.
class ThpMadviseForJob {
 public:
  explicit ThpMadviseForJob(bool wanted, const std::string& sys_root = "/sys");
  ThpMadviseForJob(const ThpMadviseForJob&) = delete;
  ThpMadviseForJob& operator=(const ThpMadviseForJob&) = delete;
  ~ThpMadviseForJob();

  bool changed() const { return changed_; }

 private:
  std::string path_;
  bool changed_ = false;
};

}  // namespace storbed

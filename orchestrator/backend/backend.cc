#include "backend/backend.h"

namespace storbed {
namespace {

std::string Section(const std::string& title, const std::string& tail) {
  return "\n--- " + title + " ---\n" + (tail.empty() ? "(empty)\n" : tail);
}

}  // namespace

MachineDiedError::MachineDiedError(const std::string& machine,
                                   const std::string& exit_description,
                                   const std::string& qemu_log_tail,
                                   const std::string& console_tail)
    : std::runtime_error("machine " + machine + ": QEMU " + exit_description +
                         Section("qemu.log (last 20 lines)", qemu_log_tail) +
                         Section("console.log (last 20 lines)", console_tail)),
      exit_description_(exit_description),
      qemu_log_tail_(qemu_log_tail),
      console_tail_(console_tail) {}

}  // namespace storbed

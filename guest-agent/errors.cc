#include "errors.h"

#include <string.h>

namespace storbed::agent {

SystemError::SystemError(const std::string& what_failed, int error_number)
    : AgentError(what_failed + ": " + ErrnoText(error_number)), error_number_(error_number) {}

std::string ErrnoText(int error_number) {
  char buffer[256];
  // GNU strerror_r: returns a pointer that may or may not be `buffer`.
  return ::strerror_r(error_number, buffer, sizeof buffer);
}

}  // namespace storbed::agent

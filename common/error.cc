#include "error.h"

#include <system_error>

namespace storbed {

ErrorKind KindOf(const std::exception& e) {
  if (const auto* error = dynamic_cast<const Error*>(&e)) return error->kind();
  if (dynamic_cast<const std::invalid_argument*>(&e)) return ErrorKind::BadInput;
  if (dynamic_cast<const std::system_error*>(&e)) return ErrorKind::Host;
  return ErrorKind::Internal;
}

}  // namespace storbed

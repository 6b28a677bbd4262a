#include "cli/parse_messages.h"

namespace storbed {

std::string ConversionMessage(const std::string& cli11_text) {
  const std::string prefix = "Could not convert: ";
  const size_t eq = cli11_text.find(" = ");
  if (cli11_text.rfind(prefix, 0) != 0 || eq == std::string::npos) return cli11_text;
  const std::string option = cli11_text.substr(prefix.size(), eq - prefix.size());
  const std::string value = cli11_text.substr(eq + 3);
  // Every option CLI11 converts here is numeric: the string ones take any text.
  return option + ": \"" + value + "\" is not a number";
}

}  // namespace storbed

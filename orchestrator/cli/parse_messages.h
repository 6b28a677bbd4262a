// Our wording for CLI11's parse errors, so a bad option value reads like every other bad
// input: the option, the value and what it should be.
#pragma once

#include <string>

namespace storbed {

// CLI11's "Could not convert: --noise = lots" as "--noise: \"lots\" is not a number";
// any other text unchanged.
std::string ConversionMessage(const std::string& cli11_text);

}  // namespace storbed

// Base64 (RFC 4648, with padding): QGA carries file contents and process output in it.
#pragma once

#include <string>
#include <string_view>

namespace storbed {

std::string Base64Encode(std::string_view bytes);
// Skips characters outside the alphabet (line breaks); stops at '='.
std::string Base64Decode(std::string_view text);

}  // namespace storbed

// JSON as users write it: nlohmann keeps the last of two equal keys silently, so a
// scenario with "bs" twice would run with a value the user may not have meant.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace storbed {

// Parses `text`. Throws std::invalid_argument "not valid JSON: ..." or "key \"K\" appears
// twice in one object (at PATH)".
nlohmann::json ParseJsonNoDuplicateKeys(const std::string& text);

// nlohmann's what() without its "[json.exception.parse_error.101] " tag: the rest is the
// sentence a user can act on ("parse error at line 2, column 12: ...").
std::string WithoutJsonTag(const std::string& what);

}  // namespace storbed

// JSON as users write it: nlohmann keeps the last of two equal keys silently, so a
// scenario with "bs" twice would run with a value the user may not have meant.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace storbed {

// Parses `text`. Throws std::invalid_argument "not valid JSON: ..." or "key \"K\" appears
// twice in one object (at PATH)".
nlohmann::json ParseJsonNoDuplicateKeys(const std::string& text);

}  // namespace storbed

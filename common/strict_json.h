// JSON as users write it: nlohmann keeps the last of two equal keys silently, so a
// scenario with "bs" twice would run with a value the user may not have meant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace storbed {

// The deepest nesting of arrays and objects storbed reads in any JSON document. Its own
// documents nest at most 8 levels (results.json 7, manifest.json 5, scenarios 4); nlohmann's
// value copy, dump and destruction recurse once per level, so a 130k-deep document ran out of
// stack (SIGSEGV) before this bound.
inline constexpr int kMaxJsonDepth = 64;

// "" when `text` nests arrays and objects at most `max_depth` levels deep; else the sentence
// (N counts from 1, as an editor does)
// "arrays and objects nest deeper than 64 levels (at byte N)". One linear pass that skips
// strings; it does not check that the text is JSON.
std::string JsonDepthProblem(std::string_view text, int max_depth = kMaxJsonDepth);

// Parses a document storbed did not just make itself (a file, a line from the agent or QEMU).
// Throws std::invalid_argument with JsonDepthProblem's sentence when it nests too deep, and
// nlohmann's own exception (parse_error, out_of_range) when it is not JSON.
nlohmann::json ParseJson(std::string_view text);

// ParseJson that returns a discarded value instead of throwing.
nlohmann::json ParseJsonOrDiscarded(std::string_view text);

// Parses `text`. Throws std::invalid_argument "not valid JSON: ..." (nesting deeper than
// kMaxJsonDepth included) or "key \"K\" appears
// twice in one object (at PATH)".
nlohmann::json ParseJsonNoDuplicateKeys(const std::string& text);

// nlohmann's what() without its "[json.exception.parse_error.101] " tag: the rest is the
// sentence a user can act on ("parse error at line 2, column 12: ...").
std::string WithoutJsonTag(const std::string& what);

}  // namespace storbed

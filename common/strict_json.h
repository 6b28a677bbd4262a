// JSON as users write it: nlohmann keeps the last of two equal keys silently, so a
// scenario with "bs" twice would run with a value the user may not have meant.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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

// `v` as the whole number type T. nlohmann's get<T> casts a float (1e106, -5.5) to an
// integer type, which is undefined out of range (found by protocol_fuzz); here anything but a
// JSON integer in T's range throws std::invalid_argument "expected a whole number from MIN to
// MAX, got V".
template <class T>
T WholeNumber(const nlohmann::json& v) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (v.is_number_unsigned() && std::in_range<T>(v.get<uint64_t>())) return T(v.get<uint64_t>());
  if (v.is_number_integer() && !v.is_number_unsigned() && std::in_range<T>(v.get<int64_t>()))
    return T(v.get<int64_t>());
  std::string got = v.dump();
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  throw std::invalid_argument("expected a whole number from " +
                              std::to_string(std::numeric_limits<T>::min()) + " to " +
                              std::to_string(std::numeric_limits<T>::max()) + ", got " + got);
}

// `v` as T: a whole number through WholeNumber, anything else through get<T>.
template <class T>
T FromJsonValue(const nlohmann::json& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return WholeNumber<T>(v);
  else
    return v.get<T>();
}

// nlohmann's what() without its "[json.exception.parse_error.101] " tag: the rest is the
// sentence a user can act on ("parse error at line 2, column 12: ...").
std::string WithoutJsonTag(const std::string& what);

}  // namespace storbed

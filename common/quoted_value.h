// A value the user gave, quoted in an error message: a bounded prefix, JSON-escaped, so a
// 5 MB value cannot flood the terminal, an escape sequence cannot drive it, and a NUL byte
// neither ends the message nor hides what follows it.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace storbed {

// The most of a value a message quotes: a path of a few directories fits.
inline constexpr size_t kMaxQuotedBytes = 256;

// `value` as a JSON string ("a\u001b[2Jb", NUL as \u0000, bytes that are not UTF-8 as
// U+FFFD); a longer one cut at a character boundary within `max_bytes` and followed by
// "... (N bytes)".
std::string QuoteValue(std::string_view value, size_t max_bytes = kMaxQuotedBytes);

// `value` itself when it fits in `max_bytes`; else its prefix (cut at a character
// boundary) and "... (N bytes)". For messages that quote in their own way ('...').
std::string ValuePrefix(std::string_view value, size_t max_bytes = kMaxQuotedBytes);

// A JSON value as QuoteValue quotes a string; any other value its JSON text, cut alike
// (a 5 MB list of numbers too).
std::string QuoteJson(const nlohmann::json& value, size_t max_bytes = kMaxQuotedBytes);

}  // namespace storbed

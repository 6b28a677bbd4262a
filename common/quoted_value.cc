#include "quoted_value.h"

#include <nlohmann/json.hpp>

namespace storbed {

namespace {

// How much of `value` a message keeps.
size_t KeptBytes(std::string_view value, size_t max_bytes) {
  if (value.size() <= max_bytes) return value.size();
  size_t keep = max_bytes;
  // Back up over UTF-8 continuation bytes: half a character would print as U+FFFD.
  while (keep > 0 && (static_cast<unsigned char>(value[keep]) & 0xC0) == 0x80) --keep;
  return keep;
}

}  // namespace

std::string ValuePrefix(std::string_view value, size_t max_bytes) {
  const size_t keep = KeptBytes(value, max_bytes);
  std::string out(value.substr(0, keep));
  if (keep < value.size()) out += "... (" + std::to_string(value.size()) + " bytes)";
  return out;
}

std::string QuoteValue(std::string_view value, size_t max_bytes) {
  const size_t keep = KeptBytes(value, max_bytes);
  // ensure_ascii: what the message shows is what the bytes are, whatever the terminal.
  std::string quoted = nlohmann::json(std::string(value.substr(0, keep)))
                           .dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (keep < value.size()) quoted += "... (" + std::to_string(value.size()) + " bytes)";
  return quoted;
}

std::string QuoteJson(const nlohmann::json& value, size_t max_bytes) {
  if (value.is_string()) return QuoteValue(value.get_ref<const std::string&>(), max_bytes);
  std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (text.size() <= max_bytes) return text;
  return text.substr(0, max_bytes) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace storbed

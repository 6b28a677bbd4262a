#include "terminal_text.h"

#include <cstdio>

namespace storbed {

std::string EscapeControlChars(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char code[8];
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned char>(text[++i]));
      out += code;
    } else if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0xa0) {
      out += text[i];
    } else if (c < 0x20 || c == 0x7f) {
      std::snprintf(code, sizeof code, "\\x%02x", c);
      out += code;
    } else {
      out += text[i];  // 0x80..0x9f after another lead byte: UTF-8 continuation
    }
  }
  return out;
}

}  // namespace storbed

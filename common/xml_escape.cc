#include "xml_escape.h"

namespace storbed {

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;  // HTML 4 has no &apos;
      case '\t':
      case '\n': out += c; break;
      default:
        // Neither XML 1.0 nor HTML can carry other control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += "\xEF\xBF\xBD";
        else out += c;
    }
  }
  return out;
}

}  // namespace storbed

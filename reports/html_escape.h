// Text for HTML pages and inline SVG. Job names, cells, paths and environment values come
// from the user's scenario and machine: every one goes through here before it lands in
// markup, so none can open a tag, end an attribute or start an entity.
#pragma once

#include <string>
#include <string_view>

#include "xml_escape.h"

namespace storbed {

// & < > " ' as entities; control characters other than tab and newline as U+FFFD
// (common/xml_escape.h). Valid for element text and quoted attribute values.
inline std::string EscapeHtml(std::string_view text) { return XmlEscape(text); }

}  // namespace storbed

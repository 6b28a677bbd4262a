// Text for HTML pages and inline SVG. Job names, cells, paths and environment values come
// from the user's scenario and machine: every one goes through here before it lands in
// markup, so none can open a tag, end an attribute or start an entity.
#pragma once

#include <string>
#include <string_view>

namespace storbed {

// & < > " ' as entities; control characters other than tab and newline (which neither
// HTML nor SVG can carry) as U+FFFD. Valid for element text and quoted attribute values.
std::string EscapeHtml(std::string_view text);

}  // namespace storbed

// Text made safe for XML and HTML text and quoted attribute values: libvirt domain XML,
// JUnit, the HTML report and its inline SVG.
#pragma once

#include <string>
#include <string_view>

namespace storbed {

// & < > " ' as entities; control characters other than tab and newline (which neither
// XML 1.0 nor HTML can carry, even escaped) as U+FFFD.
std::string XmlEscape(std::string_view text);

}  // namespace storbed

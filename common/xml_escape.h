// Text made safe for XML (and HTML) text and attribute values: libvirt domain XML, JUnit.
#pragma once

#include <string>

namespace storbed {

// & < > ' " as entities; control characters XML 1.0 cannot carry, even escaped, as '?'.
std::string XmlEscape(const std::string& text);

}  // namespace storbed

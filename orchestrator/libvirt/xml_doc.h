// The XML libvirt hands back (domain, pool and status descriptions), read with libxml2: any
// quoting, attribute order and namespace prefix, entities and character references decoded.
// storbed writes its XML itself (common/xml_escape.h); this is only the reading side.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct _xmlDoc;

namespace storbed {

// Prefix and namespace URI pairs for the prefixes an XPath expression uses.
using XmlNamespaces = std::vector<std::pair<std::string, std::string>>;

class XmlDoc {
 public:
  // The parsed document; nullopt when `text` is not well-formed XML. Never loads a DTD or
  // an external entity, and prints nothing.
  static std::optional<XmlDoc> Parse(std::string_view text);

  // The decoded string value of the first node XPath `xpath` selects (an attribute's value,
  // an element's text), or of a non-node result; nullopt when it selects no node. Throws
  // std::invalid_argument for an expression libxml2 cannot evaluate.
  std::optional<std::string> First(const std::string& xpath, const XmlNamespaces& ns = {}) const;

  // True when some attribute value or text node contains `needle`, both decoded.
  bool AnyValueContains(std::string_view needle) const;

 private:
  struct Free {
    void operator()(_xmlDoc* doc) const;
  };
  explicit XmlDoc(_xmlDoc* doc) : doc_(doc) {}
  std::unique_ptr<_xmlDoc, Free> doc_;
};

}  // namespace storbed

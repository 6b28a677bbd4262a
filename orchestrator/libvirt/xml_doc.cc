#include "libvirt/xml_doc.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <limits>
#include <new>
#include <stdexcept>

namespace storbed {
namespace {

const xmlChar* Chars(const std::string& s) { return reinterpret_cast<const xmlChar*>(s.c_str()); }

// Takes a string libxml2 allocated.
std::string Take(xmlChar* s) {
  if (s == nullptr) return "";
  std::string out(reinterpret_cast<const char*>(s));
  xmlFree(s);
  return out;
}

bool Contains(const xmlChar* text, std::string_view needle) {
  return text != nullptr &&
         std::string_view(reinterpret_cast<const char*>(text)).find(needle) != std::string::npos;
}

bool SubtreeContains(xmlDoc* doc, const xmlNode* node, std::string_view needle) {
  for (; node != nullptr; node = node->next) {
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
      if (Contains(node->content, needle)) return true;
    } else if (node->type == XML_ELEMENT_NODE) {
      for (const xmlAttr* a = node->properties; a != nullptr; a = a->next) {
        if (Take(xmlNodeListGetString(doc, a->children, 1)).find(needle) != std::string::npos)
          return true;
      }
      if (SubtreeContains(doc, node->children, needle)) return true;
    }
  }
  return false;
}

}  // namespace

void XmlDoc::Free::operator()(_xmlDoc* doc) const { xmlFreeDoc(doc); }

std::optional<XmlDoc> XmlDoc::Parse(std::string_view text) {
  // Once per process, before threads parse (libxml2's advice for threaded programs).
  [[maybe_unused]] static const bool initialised = (xmlInitParser(), true);
  if (text.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  // No XML_PARSE_NOENT: the five predefined entities and character references are decoded
  // anyway; NOENT would substitute a DTD's own (external) entities.
  xmlDoc* doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), nullptr, nullptr,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) return std::nullopt;
  return XmlDoc(doc);
}

std::optional<std::string> XmlDoc::First(const std::string& xpath, const XmlNamespaces& ns) const {
  std::unique_ptr<xmlXPathContext, decltype(&xmlXPathFreeContext)> context(
      xmlXPathNewContext(doc_.get()), xmlXPathFreeContext);
  if (!context) throw std::bad_alloc();
  for (const auto& [prefix, uri] : ns) xmlXPathRegisterNs(context.get(), Chars(prefix), Chars(uri));
  std::unique_ptr<xmlXPathObject, decltype(&xmlXPathFreeObject)> result(
      xmlXPathEvalExpression(Chars(xpath), context.get()), xmlXPathFreeObject);
  if (!result) throw std::invalid_argument("XPath \"" + xpath + "\" cannot be evaluated");
  if (result->type != XPATH_NODESET) return Take(xmlXPathCastToString(result.get()));
  if (xmlXPathNodeSetIsEmpty(result->nodesetval)) return std::nullopt;
  return Take(xmlXPathCastNodeToString(result->nodesetval->nodeTab[0]));
}

bool XmlDoc::AnyValueContains(std::string_view needle) const {
  return SubtreeContains(doc_.get(), xmlDocGetRootElement(doc_.get()), needle);
}

}  // namespace storbed

// Test helper: whether generated HTML/SVG is well formed enough to trust the structure a
// browser builds from it: every element closes, in order, and no text holds a raw '<'.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace storbed::testing_support {

// "" when `markup` is balanced; else what is wrong and where. HTML void elements (meta,
// link, br, hr, img, input) and <!DOCTYPE>/comments need no end tag.
inline std::string MarkupProblem(const std::string& markup) {
  static const std::vector<std::string> kVoid = {"meta", "link", "br", "hr", "img", "input"};
  std::vector<std::string> open;
  size_t i = 0;
  while ((i = markup.find('<', i)) != std::string::npos) {
    if (markup.compare(i, 4, "<!--") == 0) {
      i = markup.find("-->", i);
      if (i == std::string::npos) return "unterminated comment";
      continue;
    }
    const size_t end = markup.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    const std::string tag = markup.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '!') continue;
    const bool closing = tag[0] == '/';
    const std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" \n/", 1) - (closing ? 1 : 0));
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
      return "a raw '<' in text near: " + markup.substr(i > 40 ? i - 40 : 0, 80);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
      open.pop_back();
    } else if (tag.back() != '/' && std::find(kVoid.begin(), kVoid.end(), name) == kVoid.end()) {
      open.push_back(name);
    }
  }
  if (!open.empty()) return "<" + open.back() + "> never closes";
  return "";
}

// How often `needle` occurs in `haystack`.
inline size_t Occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size()))
    ++n;
  return n;
}

}  // namespace storbed::testing_support

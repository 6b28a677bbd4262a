// Samplers diff two readings of one file. A fuzz input holds both, split at the first
// "===\n" line; without one, both readings are the whole input.
#pragma once

#include <string>
#include <utility>

namespace storbed::fuzz {

inline std::pair<std::string, std::string> SplitSnapshots(const std::string& text) {
  const std::string mark = "===\n";
  const size_t at = text.find(mark);
  if (at == std::string::npos || (at != 0 && text[at - 1] != '\n')) return {text, text};
  return {text.substr(0, at), text.substr(at + mark.size())};
}

}  // namespace storbed::fuzz

#include "scenario/name_rule.h"

#include <cstdio>

#include "quoted_value.h"

namespace storbed {
namespace {

bool Alnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool Allowed(unsigned char c) { return Alnum(c) || c == '.' || c == '_' || c == '-'; }

}  // namespace

bool HasControlCharacter(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if (c < 0x20 || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < text.size() && (unsigned char)text[i + 1] >= 0x80 &&
        (unsigned char)text[i + 1] <= 0x9f)
      return true;
  }
  return false;
}

std::string EscapedControlCharacters(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = text[i];
    const bool c1 = c == 0xc2 && i + 1 < text.size() && (unsigned char)text[i + 1] >= 0x80 &&
                    (unsigned char)text[i + 1] <= 0x9f;
    if (c1) c = text[++i];
    if (c < 0x20 || c == 0x7f || c1) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out;
}

std::string QuotedForMessage(const std::string& text) { return QuoteValue(text); }

std::string NameProblem(const std::string& name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > kMaxNameLength)
    return "is " + std::to_string(name.size()) + " characters long; names are at most " +
           std::to_string(kMaxNameLength);
  bool ok = Alnum(name[0]);
  for (const unsigned char c : name) ok &= Allowed(c);
  if (ok) return "";
  return QuotedForMessage(name) +
         " may hold only letters, digits, '.', '_' and '-', beginning with a letter or digit "
         "(it names files, run ids and guests)";
}

std::string SchedulerNameProblem(const std::string& name) {
  bool ok = name.size() <= 32;
  for (const unsigned char c : name)
    ok &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  if (ok) return "";
  return QuotedForMessage(name) +
         " is not an IO scheduler name (lowercase letters, digits, '-' and '_', as in "
         "/sys/block/<disk>/queue/scheduler: none, mq-deadline, bfq, kyber)";
}

std::string SanitizedName(const std::string& name) {
  std::string out;
  for (const unsigned char c : name) out += Allowed(c) ? char(c) : '-';
  while (!out.empty() && !Alnum(out[0])) out.erase(0, 1);
  if (out.size() > kMaxNameLength) out.resize(kMaxNameLength);
  return out.empty() ? "scenario" : out;
}

}  // namespace storbed

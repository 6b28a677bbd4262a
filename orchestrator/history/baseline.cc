#include "history/baseline.h"

#include <stdexcept>

namespace storbed {
namespace {

[[noreturn]] void Bad(const std::string& text, const std::string& why) {
  throw std::invalid_argument("--baseline " + text + ": " + why +
                              " (expected last:N, rev:REVISION or date:FROM[..TO])");
}

}  // namespace

BaselineSpec ParseBaseline(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) Bad(text, "no kind");
  const std::string kind = text.substr(0, colon), value = text.substr(colon + 1);
  if (value.empty()) Bad(text, "nothing after '" + kind + ":'");
  BaselineSpec spec;
  if (kind == "last") {
    spec.kind = BaselineSpec::Kind::Last;
    size_t used = 0;
    unsigned long n = 0;
    try {
      n = std::stoul(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || n == 0 || n > 10000 || value[0] == '-')
      Bad(text, "N must be a whole number from 1 to 10000");
    spec.last = n;
  } else if (kind == "rev") {
    spec.kind = BaselineSpec::Kind::Revision;
    spec.revision = value;
  } else if (kind == "date") {
    spec.kind = BaselineSpec::Kind::Date;
    const size_t dots = value.find("..");
    spec.from = value.substr(0, dots);
    spec.to = dots == std::string::npos ? spec.from : value.substr(dots + 2);
    if (spec.from.empty() || spec.to.empty()) Bad(text, "an empty end of the date range");
    if (spec.to < spec.from) Bad(text, "the range ends before it starts");
  } else {
    Bad(text, "unknown kind '" + kind + "'");
  }
  return spec;
}

std::vector<HistorySession> PickBaseline(const std::vector<HistorySession>& sessions,
                                         const BaselineSpec& spec,
                                         const std::string& tonight_session,
                                         const std::string& tonight_started_at) {
  std::vector<HistorySession> earlier;
  for (const HistorySession& s : sessions)
    if (s.session != tonight_session && s.started_at < tonight_started_at) earlier.push_back(s);
  std::vector<HistorySession> out;
  switch (spec.kind) {
    case BaselineSpec::Kind::Last:
      out.assign(earlier.size() > spec.last ? earlier.end() - long(spec.last) : earlier.begin(),
                 earlier.end());
      break;
    case BaselineSpec::Kind::Revision:
      for (const HistorySession& s : earlier)
        if (s.revision.rfind(spec.revision, 0) == 0) out.push_back(s);
      break;
    case BaselineSpec::Kind::Date:
      // A prefix bound: "2026-11-30" takes the whole day.
      for (const HistorySession& s : earlier)
        if (s.started_at >= spec.from && s.started_at.substr(0, spec.to.size()) <= spec.to)
          out.push_back(s);
      break;
  }
  return out;
}

}  // namespace storbed

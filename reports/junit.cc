#include "reports/junit.h"

#include <sstream>

namespace storbed {

std::string JunitXml(const CompareReport& report, const std::string& suite_name,
                     const std::string& timestamp) {
  size_t failures = 0, errors = 0, skipped = 0;
  std::ostringstream cases;
  if (report.comparable == false) {
    ++failures;
    std::string items;
    for (const EnvironmentDiff& d : report.differences)
      if (Blocks(d)) items += (items.empty() ? "" : ", ") + d.item;
    const std::string message = "not comparable: " + items + " differs";
    cases << "    <testcase classname=\"" << XmlEscape(suite_name)
          << "\" name=\"environment\" time=\"0\">\n      <failure type=\"not comparable\" "
          << "message=\"" << XmlEscape(message) << "\">";
    for (const EnvironmentDiff& d : report.differences)
      cases << XmlEscape(d.item + ": " + d.base + " -> " + d.cand) << "\n";
    cases << "</failure>\n    </testcase>\n";
  }
  for (const MetricRow& r : report.rows) {
    cases << "    <testcase classname=\"" << XmlEscape(r.cell) << "\" name=\""
          << XmlEscape(r.metric) << "\" time=\"0\">";
    const std::string line = VerdictLine(r);
    if (r.verdict == "worse" && r.role == MetricRole::Primary) {
      ++failures;
      cases << "\n      <failure type=\"worse\" message=\"" << XmlEscape(line) << "\">"
            << XmlEscape(line) << "</failure>\n    ";
    } else if (r.verdict == "cannot judge") {
      // The gate could not see a change of the size it guards: an error, never a pass.
      ++errors;
      cases << "\n      <error type=\"cannot judge\" message=\"" << XmlEscape(line) << "\">"
            << XmlEscape(line) << "</error>\n    ";
    } else if (r.verdict == "inconclusive" || r.verdict == "too few runs") {
      ++skipped;
      cases << "\n      <skipped message=\"" << XmlEscape(line) << "\"/>\n    ";
    } else {
      cases << "\n      <system-out>" << XmlEscape(line) << "</system-out>\n    ";
    }
    cases << "</testcase>\n";
  }
  const size_t tests = report.rows.size() + (report.comparable == false ? 1 : 0);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"storbed\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\">\n"
      << "  <testsuite name=\"" << XmlEscape(suite_name) << "\" tests=\"" << tests
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped
      << "\" timestamp=\"" << XmlEscape(timestamp) << "\">\n"
      << cases.str() << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace storbed

// The results table section: the same rows as report.txt, as an HTML table.
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/table.h"

namespace storbed {

std::string TableSectionHtml(const ReportInput& input) {
  const ReportTable t = BuildTable(input.records, input.per_repeat);
  if (t.rows.empty()) return HtmlParagraph("No runs to show.", "note");
  std::string out = HtmlTable(t.header, t.rows, t.first_numeric, t.last_numeric);
  if (!t.legend.empty()) out += HtmlParagraph(t.legend, "note");
  if (!t.notes.empty()) out += HtmlHeading("Notes") + HtmlList(t.notes);
  return out + HtmlParagraph(t.footnote, "note");
}

}  // namespace storbed

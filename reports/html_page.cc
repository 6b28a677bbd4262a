#include "reports/html_page.h"

#include <cstdint>

#include "reports/html_escape.h"

namespace storbed {
namespace {

// System fonts only: a web font would be a download, and the page must open offline.
constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 1200px; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin-top: 1.5em; }
nav ol { columns: 2; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
.note { color: #555; font-size: 0.9em; }
figure { margin: 1em 0; }
figcaption { color: #555; font-size: 0.9em; }
div.host { display: inline-block; vertical-align: top; margin-right: 0.5em; }
svg.chart { max-width: 100%; height: auto; display: block; }
code { font-size: 0.95em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
)";

}  // namespace

std::string HtmlPage(const std::string& title, const std::vector<HtmlSection>& sections,
                     const std::string& footer) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // An empty icon: the browser asks for nothing beside this file.
      "<link rel=\"icon\" href=\"data:,\">\n<title>" +
      EscapeHtml(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" +
      EscapeHtml(title) + "</h1>\n<nav>\n<ol>\n";
  for (const HtmlSection& s : sections)
    out += "<li><a href=\"#" + EscapeHtml(s.id) + "\">" + EscapeHtml(s.title) + "</a></li>\n";
  out += "</ol>\n</nav>\n";
  for (const HtmlSection& s : sections)
    out += "<section id=\"" + EscapeHtml(s.id) + "\">\n<h2>" + EscapeHtml(s.title) + "</h2>\n" +
           s.body_html + "</section>\n";
  return out + "<footer>" + EscapeHtml(footer) + "</footer>\n</body>\n</html>\n";
}

std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows, size_t first_numeric,
                      size_t last_numeric) {
  auto numeric = [&](size_t c) { return c >= first_numeric && c <= last_numeric; };
  std::string out = "<table>\n<thead><tr>";
  for (size_t c = 0; c < header.size(); ++c)
    out +=
        std::string(numeric(c) ? "<th class=\"num\">" : "<th>") + EscapeHtml(header[c]) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c)
      out += std::string(numeric(c) ? "<td class=\"num\">" : "<td>") + EscapeHtml(row[c]) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string HtmlParagraph(const std::string& text, const std::string& css_class) {
  return (css_class.empty() ? "<p>" : "<p class=\"" + EscapeHtml(css_class) + "\">") +
         EscapeHtml(text) + "</p>\n";
}

std::string HtmlList(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string out = "<ul>\n";
  for (const auto& i : items) out += "<li>" + EscapeHtml(i) + "</li>\n";
  return out + "</ul>\n";
}

std::string HtmlHeading(const std::string& text) { return "<h3>" + EscapeHtml(text) + "</h3>\n"; }

std::string HtmlFigure(const std::string& svg_html, const std::string& caption) {
  return "<figure>\n" + svg_html +
         (caption.empty() ? "" : "<figcaption>" + EscapeHtml(caption) + "</figcaption>\n") +
         "</figure>\n";
}

}  // namespace storbed

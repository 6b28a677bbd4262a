// The pieces of the HTML report that are not charts: the page with its inline style
// sheet, sections, tables and paragraphs. One file, no scripts, no fetched fonts or
// images, so it opens the same offline in any browser years from now. Text is escaped
// here; arguments named *_html are markup already.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace storbed {

struct HtmlSection {
  std::string id;     // the anchor: "environment"
  std::string title;  // "Environment"
  std::string body_html;
};

// <!DOCTYPE html> to </html>: the title, a contents list linking every section, the
// sections in order, and `footer` (escaped) at the end.
std::string HtmlPage(const std::string& title, const std::vector<HtmlSection>& sections,
                     const std::string& footer);

// A table; columns first_numeric..last_numeric are right-aligned figures.
std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows,
                      size_t first_numeric = SIZE_MAX, size_t last_numeric = 0);

// <p>text</p>, with `css_class` when given ("note").
std::string HtmlParagraph(const std::string& text, const std::string& css_class = "");

// <ul> of the items, or "" for none.
std::string HtmlList(const std::vector<std::string>& items);

// <h3>text</h3>
std::string HtmlHeading(const std::string& text);

// A chart with its caption, for charts that need a sentence to read them.
std::string HtmlFigure(const std::string& svg_html, const std::string& caption);

}  // namespace storbed

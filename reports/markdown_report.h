// The results table and, given a BASE, the compare verdicts as GitHub-flavoured Markdown:
// for pull requests, issues and wikis, where a chart cannot go but a table can.
#pragma once

#include <string>
#include <vector>

#include "reports/report_formats.h"

namespace storbed {

// The table (BuildTable) with its legend and notes; with input.compare_base set, the
// per-metric summary and one verdict table per cell. Throws std::invalid_argument when
// that BASE cannot be read.
std::string RenderMarkdownReport(const ReportInput& input);

// A Markdown table; columns first_numeric..last_numeric right-aligned. Cells are escaped
// (| and the characters Markdown would take as formatting), newlines become spaces.
std::string MarkdownTable(const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows, size_t first_numeric,
                          size_t last_numeric);

// Text with Markdown's formatting characters backslash-escaped and < > & as entities, so a
// name shows as written and cannot open HTML (which GitHub renders in Markdown).
std::string EscapeMarkdown(const std::string& text);

}  // namespace storbed

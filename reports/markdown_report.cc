#include "reports/markdown_report.h"

#include <optional>

#include "reports/compare_input.h"
#include "reports/compare_metrics.h"
#include "reports/compare_words.h"
#include "reports/number_text.h"
#include "reports/table.h"

namespace storbed {
namespace {

std::string CompareMarkdown(const CompareReport& report) {
  std::string out = "\n## Compared with " + EscapeMarkdown(report.base_name) + "\n\n" + "BASE " +
                    EscapeMarkdown(report.base_name) + " vs CAND " +
                    EscapeMarkdown(report.cand_name) + ": " +
                    EscapeMarkdown(MethodSentence(report)) + ".\n\n" +
                    EscapeMarkdown(FamilySentence(report)) + ".\n\n";
  if (!report.comparable)
    out += "Environment not checked (a manifest.json is missing).\n\n";
  else if (!*report.comparable)
    out += "**Not comparable**: an environment item differs:\n\n";
  for (const EnvironmentDiff& d : report.differences)
    if (Blocks(d))
      out += "- " + EscapeMarkdown(d.item + ": BASE " + d.base + " | CAND " + d.cand) + "\n";
  if (report.comparable && !*report.comparable) out += "\n";
  std::vector<std::vector<std::string>> summary;
  for (const MetricSummary& m : report.metrics)
    summary.push_back({m.metric, m.verdict, std::to_string(m.worse), std::to_string(m.better),
                       std::to_string(m.cells)});
  out += MarkdownTable({"metric", "verdict", "worse", "better", "cells"}, summary, 2, 4);
  for (const CellSummary& cell : report.cells) {
    out += "\n### " + EscapeMarkdown(cell.cell) + " (n " + std::to_string(cell.n_base) + " vs " +
           std::to_string(cell.n_cand) + ")\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const MetricRow& r : report.rows)
      if (r.cell == cell.cell)
        rows.push_back({r.metric, BetterPhrase(r.direction), FormatNumber(r.median_base), FormatNumber(r.median_cand),
                        FormatNumber(r.ratio, "%.3f"),
                        r.ci_low ? FormatNumber(r.ci_low, "%.3f") + " .. " + FormatNumber(r.ci_high, "%.3f") : "-",
                        FormatNumber(r.p, "%.2g"), FormatNumber(r.adjusted_p, "%.2g"), r.verdict,
                        r.detail});
    out += MarkdownTable({"metric", "better", "BASE", "CAND", "ratio", "95% CI", "p", "p adj",
                          "verdict", "detail"},
                         rows, 2, 6);
    for (const ResolutionLine& line : cell.resolution)
      out += "- " + EscapeMarkdown(line.metric + ": " + ResolutionSentence(line.resolution)) + "\n";
  }
  for (const auto& c : report.only_base) out += "\nonly in BASE: " + EscapeMarkdown(c) + "\n";
  for (const auto& c : report.only_cand) out += "\nonly in CAND: " + EscapeMarkdown(c) + "\n";
  return out;
}

}  // namespace

std::string EscapeMarkdown(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '#':
      case '~':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string MarkdownTable(const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows, size_t first_numeric,
                          size_t last_numeric) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& c : cells) out += " " + EscapeMarkdown(c) + " |";
    return out + "\n";
  };
  std::string out = line(header) + "|";
  for (size_t c = 0; c < header.size(); ++c)
    out += c >= first_numeric && c <= last_numeric ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string RenderMarkdownReport(const ReportInput& input) {
  const ReportTable t = BuildTable(input.records, input.per_repeat);
  std::string out = "## storbed results: " + EscapeMarkdown(input.dir) + "\n\n" +
                    MarkdownTable(t.header, t.rows, t.first_numeric, t.last_numeric);
  if (!t.legend.empty()) out += "\n" + EscapeMarkdown(t.legend) + "\n";
  if (!t.notes.empty()) {
    out += "\nNotes:\n\n";
    for (const auto& n : t.notes) out += "- " + EscapeMarkdown(n) + "\n";
  }
  out += "\n" + EscapeMarkdown(t.footnote) + "\n";
  if (!input.compare_base.empty())
    out += CompareMarkdown(CompareWithBase(input.compare_base, input.dir, input.records));
  return out;
}

}  // namespace storbed

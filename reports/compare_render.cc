// The compare report as people read it (a table per cell) and as JSON for tools.
#include <cmath>
#include <sstream>

#include "reports/compare.h"
#include "reports/compare_words.h"
#include "reports/number_text.h"

namespace storbed {
namespace {

nlohmann::json OrNull(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string Padded(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

void RenderCell(std::ostream& out, const CellSummary& cell, const CompareReport& report) {
  if (report.design == "nights")
    out << "\n"
        << cell.cell << "   baseline nights " << cell.n_base << ", tonight's runs " << cell.n_cand;
  else
    out << "\n" << cell.cell << "   n " << cell.n_base << " vs " << cell.n_cand;
  if (cell.failed_base || cell.failed_cand)
    out << " (failed runs left out: " << cell.failed_base << " vs " << cell.failed_cand << ")";
  out << "\n  " << Padded("metric", 24) << Padded("better", 8) << Padded("base", 11)
      << Padded("cand", 11) << Padded("ratio", 8) << Padded("95% CI", 18) << Padded("p", 9)
      << Padded("p adj", 9) << "verdict\n";
  for (const MetricRow& r : report.rows) {
    if (r.cell != cell.cell) continue;
    const std::string ci = r.ci_low ? "[" + FormatNumber(r.ci_low, "%.3f") + ", " +
                                          FormatNumber(r.ci_high, "%.3f") + "]"
                                    : "-";
    out << "  " << Padded(r.metric, 24) << Padded(ToString(r.direction), 8)
        << Padded(FormatNumber(r.median_base), 11) << Padded(FormatNumber(r.median_cand), 11)
        << Padded(FormatNumber(r.ratio, "%.3f"), 8) << Padded(ci, 18)
        << Padded(FormatNumber(r.p, "%.2g"), 9) << Padded(FormatNumber(r.adjusted_p, "%.2g"), 9)
        << r.verdict << (r.detail.empty() ? "" : " (" + r.detail + ")") << "\n";
  }
  for (const ResolutionLine& line : cell.resolution)
    out << "  " << line.metric << ": " << ResolutionSentence(line.resolution) << "\n";
}

nlohmann::json ResolutionJson(const Resolution& r) {
  nlohmann::json j = {{"reachable", r.reachable}, {"runs_to_reach", r.runs_to_reach}};
  j["ratio_low"] = r.shift ? nlohmann::json(std::exp(-*r.shift)) : nullptr;
  j["ratio_high"] = r.shift ? nlohmann::json(std::exp(*r.shift)) : nullptr;
  j["runs_for_5pct"] = r.runs_for_5 ? nlohmann::json(*r.runs_for_5) : nullptr;
  j["runs_for_10pct"] = r.runs_for_10 ? nlohmann::json(*r.runs_for_10) : nullptr;
  return j;
}

nlohmann::json FamilyJson(const FamilyInfo& f, double alpha) {
  return {{"tests", f.tests},
          {"comparisons", f.comparisons},
          {"correction", f.correction},
          {"alpha", alpha}};
}

}  // namespace

std::string VerdictLine(const MetricRow& r) {
  std::string line = r.cell + " " + r.metric + ": " + r.verdict;
  if (r.ratio) line += ": ratio " + FormatNumber(r.ratio, "%.3f");
  if (r.ci_low)
    line += " [" + FormatNumber(r.ci_low, "%.3f") + ", " + FormatNumber(r.ci_high, "%.3f") + "]";
  if (r.p) line += ", p " + FormatNumber(r.p, "%.2g");
  if (r.adjusted_p) line += " (Holm " + FormatNumber(r.adjusted_p, "%.2g") + ")";
  line += ", median " + FormatNumber(r.median_base) + " -> " + FormatNumber(r.median_cand);
  if (r.direction != Better::None) line += " (" + ToString(r.direction) + " is better)";
  if (!r.detail.empty()) line += "; " + r.detail;
  return line;
}

std::string RenderCompareText(const CompareReport& report) {
  std::ostringstream out;
  out << "compare: BASE " << report.base_name << " vs CAND " << report.cand_name << "\n"
      << MethodSentence(report) << "\n"
      << FamilySentence(report) << "\n";
  for (const CellSummary& cell : report.cells) RenderCell(out, cell, report);
  out << "\nper metric over all cells (worse only when the significant cells agree):\n";
  for (const MetricSummary& m : report.metrics)
    out << "  " << Padded(m.metric, 24) << m.verdict << " (" << m.worse << " worse, " << m.better
        << " better of " << m.cells << " cells)\n";
  for (const auto& c : report.only_base) out << "only in BASE: " << c << "\n";
  for (const auto& c : report.only_cand) out << "only in CAND: " << c << "\n";
  if (!report.comparable) {
    out << "environment: one results directory, one environment\n";
  } else {
    out << "environment: " << (report.options.by.empty() ? "" : "one results directory; ")
        << report.differences.size() << " item(s) differ"
        << (report.options.by.empty() ? "" : " between the machines of the two sides") << "\n";
    for (const EnvironmentDiff& d : report.differences)
      out << "  " << d.item << ": BASE " << d.base << " | CAND " << d.cand
          << (!d.gating   ? " (not gated: describes the start of the run)"
              : d.allowed ? " (allowed: " + d.why_allowed + ")"
                          : "")
          << "\n";
    for (const EnvironmentDiff& d : report.differences)
      if (Blocks(d))
        out << "not comparable: " << d.item << " differs (--allow-diff " << d.item
            << " if it is the factor you compare)\n";
  }
  return out.str();
}

std::string RenderLevelsText(const CompareLevels& levels, const std::vector<CompareReport>& reports,
                             const std::vector<RankingRow>& ranking) {
  std::ostringstream out;
  out << "compare: " << levels.names.size() << " levels of " << levels.field << " (BASE "
      << levels.names.front() << "), " << reports.size() << " comparisons"
      << (reports.size() + 1 == levels.names.size() ? ", each level against BASE" : ", every pair")
      << "; the families span them all\n";
  for (const CompareReport& r : reports) out << "\n" << RenderCompareText(r);
  out << "\nranking per cell and primary metric, best first (ratio and verdict against BASE):\n";
  for (const RankingRow& row : ranking) {
    out << "  " << row.cell << " " << row.metric << ":";
    for (size_t i = 0; i < row.levels.size(); ++i) {
      const RankedLevel& l = row.levels[i];
      out << (i ? "," : "") << " " << i + 1 << ". " << l.level << " " << FormatNumber(l.median);
      if (!l.verdict.empty())
        out << " (" << FormatNumber(l.ratio, "%.3f") << ", " << l.verdict << ")";
      else
        out << " (BASE)";
    }
    out << "\n";
  }
  return out.str();
}

nlohmann::json CompareJson(const CompareReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const MetricRow& r : report.rows)
    rows.push_back({{"cell", r.cell},
                    {"metric", r.metric},
                    {"direction", ToString(r.direction)},
                    {"role", ToString(r.role)},
                    {"n_base", r.n_base},
                    {"n_cand", r.n_cand},
                    {"median_base", OrNull(r.median_base)},
                    {"median_cand", OrNull(r.median_cand)},
                    {"ratio", OrNull(r.ratio)},
                    {"ci_low", OrNull(r.ci_low)},
                    {"ci_high", OrNull(r.ci_high)},
                    {"p", OrNull(r.p)},
                    {"adjusted_p", OrNull(r.adjusted_p)},
                    {"design", r.design},
                    {"verdict", r.verdict},
                    {"noise", r.noise},
                    {"guard_power", OrNull(r.guard_power)},
                    {"detail", r.detail}});
  nlohmann::json cells = nlohmann::json::array();
  for (const CellSummary& c : report.cells) {
    nlohmann::json resolution = nlohmann::json::object();
    for (const ResolutionLine& line : c.resolution)
      resolution[line.metric] = ResolutionJson(line.resolution);
    cells.push_back({{"cell", c.cell},
                     {"n_base", c.n_base},
                     {"n_cand", c.n_cand},
                     {"failed_base", c.failed_base},
                     {"failed_cand", c.failed_cand},
                     {"resolution", resolution}});
  }
  nlohmann::json differences = nlohmann::json::array();
  for (const EnvironmentDiff& d : report.differences)
    differences.push_back({{"item", d.item},
                           {"base", d.base},
                           {"cand", d.cand},
                           {"gating", d.gating},
                           {"allowed", d.allowed},
                           {"why_allowed", d.why_allowed}});
  nlohmann::json metrics = nlohmann::json::array();
  for (const MetricSummary& m : report.metrics)
    metrics.push_back({{"metric", m.metric},
                       {"verdict", m.verdict},
                       {"worse", m.worse},
                       {"better", m.better},
                       {"cells", m.cells}});
  return {{"base", report.base_name},
          {"cand", report.cand_name},
          {"alpha", report.options.alpha},
          {"noise", report.options.noise},
          {"by", report.options.by},
          {"design", report.design},
          {"family",
           {{"primary", FamilyJson(report.primary, report.options.alpha)},
            {"secondary", FamilyJson(report.secondary, report.options.alpha)}}},
          {"comparable", report.comparable ? nlohmann::json(*report.comparable) : nullptr},
          {"differences", differences},
          {"rows", rows},
          {"cells", cells},
          {"metrics", metrics},
          {"only_base", report.only_base},
          {"only_cand", report.only_cand}};
}

nlohmann::json LevelsJson(const CompareLevels& levels, const std::vector<CompareReport>& reports,
                          const std::vector<RankingRow>& ranking) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const CompareReport& r : reports) comparisons.push_back(CompareJson(r));
  nlohmann::json ranked = nlohmann::json::array();
  for (const RankingRow& row : ranking) {
    nlohmann::json order = nlohmann::json::array();
    for (const RankedLevel& l : row.levels)
      order.push_back({{"level", l.level},
                       {"median", l.median},
                       {"ratio", OrNull(l.ratio)},
                       {"verdict", l.verdict}});
    ranked.push_back({{"cell", row.cell}, {"metric", row.metric}, {"levels", order}});
  }
  return {{"by", levels.field},
          {"levels", levels.names},
          {"design", levels.blocked ? "paired by round" : "unpaired"},
          {"comparisons", comparisons},
          {"ranking", ranked}};
}

}  // namespace storbed

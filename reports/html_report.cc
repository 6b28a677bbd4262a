#include "reports/html_report.h"

#include "reports/compare_input.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "version.h"

namespace storbed {

std::string RenderHtmlReport(const ReportInput& input) {
  std::vector<HtmlSection> sections = {
      {"environment", "Environment", EnvironmentSectionHtml(input)},
      {"results", "Results", TableSectionHtml(input)},
      {"ladders", "Depth ladders", LaddersSectionHtml(input)},
      {"traces", "Per-IO traces", TracesSectionHtml(input)},
      {"timelines", "Timelines", TimelinesSectionHtml(input)},
      {"latency", "Latency distributions", LatencySectionHtml(input)},
  };
  if (!input.compare_base.empty())
    sections.push_back(
        {"compare", "Compared with " + input.compare_base,
         CompareSectionHtml(CompareWithBase(input.compare_base, input.dir, input.records))});
  if (input.history)
    sections.push_back({"history", "History", HistorySectionHtml(*input.history)});
  const std::string dir = input.dir.empty() ? "(no directory)" : input.dir;
  return HtmlPage("storbed report: " + dir, sections,
                  "storbed " + std::string(kStorbedVersion) + " (" + kGitRevision +
                      "); one file, no scripts: it reads the same offline.");
}

}  // namespace storbed

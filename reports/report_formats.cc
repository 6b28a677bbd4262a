#include "reports/report_formats.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "error.h"
#include "reports/boot_text.h"
#include "reports/fio_json.h"
#include "reports/html_report.h"
#include "reports/ladders.h"
#include "reports/markdown_report.h"
#include "reports/table.h"
#include "reports/timelines.h"
#include "results/results_dir.h"
#include "terminal_text.h"

namespace storbed {
namespace {

// The table, each guest's boot and the ladders below: what `storbed run` prints when it ends.
std::string RenderText(const ReportInput& in) {
  const std::string boots = RenderBootsOfDir(in.dir);
  return RenderTable(in.records, in.per_repeat) + "\n" + (boots.empty() ? "" : boots + "\n") +
         RenderLadders(in.records);
}

std::string RenderTimelineText(const ReportInput& in) {
  return RenderTimelines(in.dir, in.records);
}

std::string KnownNames() {
  std::string names;
  for (const auto& f : ReportFormats()) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

}  // namespace

const std::vector<ReportFormat>& ReportFormats() {
  static const std::vector<ReportFormat> kFormats = {
      {"text", "the results table, each guest's boot and each run's depth ladder", "report.txt",
       RenderText},
      {"timelines", "min/mean/max of every sampled timeline of each run", "", RenderTimelineText},
      {"html",
       "one self-contained page: environment, table, ladder, timeline and latency charts "
       "(and verdicts with --compare)",
       "report.html", RenderHtmlReport},
      {"markdown", "the table (and the verdicts with --compare) as GitHub Markdown", "",
       RenderMarkdownReport},
      // Last: beside every run, so a renderer that throws cannot keep the others unwritten.
      {"fio-json",
       "fio's --output-format=json+ schema (one job per run: read/write iops, bw, clat_ns "
       "percentiles and bins, disk_util) for fio-plot and fio's own scripts",
       "fio.json", RenderFioJson},
  };
  return kFormats;
}

const ReportFormat& FindReportFormat(const std::string& name) {
  for (const auto& f : ReportFormats())
    if (f.name == name) return f;
  throw std::invalid_argument("unknown report format '" + name + "' (known: " + KnownNames() + ")");
}

std::vector<const ReportFormat*> ParseReportFormats(const std::string& list) {
  std::vector<const ReportFormat*> out;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma - start);
    if (name.empty())
      throw std::invalid_argument("empty report format in '" + list + "' (known: " + KnownNames() +
                                  ")");
    out.push_back(&FindReportFormat(name));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

void CheckReportPath(const ReportFormat& format, const std::string& results_dir,
                     const std::string& path) {
  CheckOutputPath("the " + format.name + " report", "the report", results_dir, path);
}

void CheckOutputPath(const std::string& what, const std::string& reader,
                     const std::string& results_dir, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Symlinks resolved: a link from elsewhere into the directory is the file it names.
  const fs::path target = fs::weakly_canonical(path, ec);
  const fs::path dir = fs::weakly_canonical(results_dir, ec);
  if (ec || target.empty() || dir.empty() || !fs::exists(target, ec)) return;
  const auto [dir_end, target_at] =
      std::mismatch(dir.begin(), dir.end(), target.begin(), target.end());
  if (dir_end != dir.end()) return;  // outside the results directory
  const fs::path inside = target.lexically_relative(dir);
  bool report_file = false;
  for (const auto& f : ReportFormats())
    report_file |= !f.file_name.empty() && inside == f.file_name;
  if (report_file) return;
  throw Error(ErrorKind::BadInput,
              what + "'s path " + path + " is " +
                  (inside == "." ? std::string("the results directory itself")
                                 : inside.string() + " of the results directory " + results_dir) +
                  ": writing there would replace what " + reader +
                  " reads; give a path outside it "
                  "(or one of its own report files: report.txt, report.html, fio.json)");
}

void WriteReportFile(const ReportFormat& format, const ReportInput& input,
                     const std::string& path) {
  CheckReportPath(format, input.dir, path);
  // Control characters from results.json (job names, errors, warnings) are written out, so
  // viewing the file with cat or less cannot drive the terminal.
  WriteOutputFile(path, EscapeControlChars(format.render(input)), "the " + format.name + " report");
}

void WriteOutputFile(const std::string& path, const std::string& text, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // /dev/stdout, a FIFO: written in place (a rename would replace the node itself).
    std::ofstream out(path);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + what + " " + path);
    return;
  }
  // Through a temporary file and a rename: a full disk leaves the old file whole.
  WriteFileAtomically(path, text, what);
}

std::vector<std::string> WriteReportFiles(const ReportInput& input) {
  std::vector<std::string> written;
  for (const auto& f : ReportFormats()) {
    if (f.file_name.empty()) continue;
    const std::string path = input.dir + "/" + f.file_name;
    WriteReportFile(f, input, path);
    written.push_back(path);
  }
  return written;
}

}  // namespace storbed

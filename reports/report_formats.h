// Every report storbed renders from a results directory, one row each: its name, what it
// shows, the file `storbed run` writes it to, and its renderer. The CLI calls only this;
// adding a format is one new renderer file and one row in report_formats.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "reports/history_view.h"
#include "results/run_record.h"

namespace storbed {

// What every renderer reads: the results directory and its records (warm-up runs included;
// each renderer decides what it shows of them).
struct ReportInput {
  std::string dir;
  std::vector<RunRecord> records;
  bool per_repeat = false;  // tables: one row per run even where runs repeat a cell
  // A results directory to compare against (html, markdown): BASE, with `dir` as CAND.
  std::string compare_base = "";
  // The nightly history around this directory (html): filled by `storbed report --history`.
  std::shared_ptr<const HistoryView> history = nullptr;
};

struct ReportFormat {
  std::string name;       // "text", "timelines", ...
  std::string help;       // one line, for --help
  std::string file_name;  // written beside results.json by every run; "" = on request only
  std::string (*render)(const ReportInput& input);
};

// The rows, in the order `storbed report` prints them by default.
const std::vector<ReportFormat>& ReportFormats();

// The row named `name`. Throws std::invalid_argument naming the known formats.
const ReportFormat& FindReportFormat(const std::string& name);

// "text,timelines" -> those rows, in the order given. Throws std::invalid_argument for an
// unknown or empty name.
std::vector<const ReportFormat*> ParseReportFormats(const std::string& list);

// Refuses (storbed::Error, bad input) a `path` that is an existing file of the results
// directory other than its report files (report.txt, report.html, fio.json), or the
// directory itself: `--html DIR/results.json` once replaced a night's results.
void CheckReportPath(const ReportFormat& format, const std::string& results_dir,
                     const std::string& path);

// The same for any output `what` of a command `reader` that reads the results directory
// ("the JUnit file", "the gate"): gate's --junit too.
void CheckOutputPath(const std::string& what, const std::string& reader,
                     const std::string& results_dir, const std::string& path);

// Renders `format` into the file `path` (rendered first: a renderer that throws leaves no
// file), after CheckReportPath, through a temporary file renamed over it (a failed write
// leaves the old file whole). Throws std::runtime_error naming the file when it cannot be
// written.
void WriteReportFile(const ReportFormat& format, const ReportInput& input, const std::string& path);

// Writes `text` to `path` through a temporary file renamed over it; a path that exists and
// is not a regular file (/dev/stdout, a FIFO) is written in place. `what` names it in errors.
void WriteOutputFile(const std::string& path, const std::string& text, const std::string& what);

// Renders each format with a file name into input.dir; returns the files written.
// Throws std::runtime_error naming the file when one cannot be written.
std::vector<std::string> WriteReportFiles(const ReportInput& input);

}  // namespace storbed

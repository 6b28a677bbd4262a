#include "reports/report_formats.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "error.h"

namespace storbed {
namespace {

TEST(ReportFormatsTest, NamesAndFilesAreUniqueAndEveryRowRenders) {
  std::set<std::string> names, files;
  const ReportInput empty;
  for (const auto& f : ReportFormats()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    if (!f.file_name.empty()) {
      EXPECT_TRUE(files.insert(f.file_name).second) << f.file_name;
    }
    ASSERT_NE(f.render, nullptr) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
    f.render(empty);  // no records: no throw
  }
  EXPECT_EQ(names.count("text"), 1u);
}

TEST(ReportFormatsTest, AListKeepsItsOrderAndAnUnknownNameListsTheKnownOnes) {
  const auto formats = ParseReportFormats("timelines,text");
  ASSERT_EQ(formats.size(), 2u);
  EXPECT_EQ(formats[0]->name, "timelines");
  EXPECT_EQ(formats[1]->name, "text");
  try {
    ParseReportFormats("text,pdf");
    FAIL() << "pdf was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown report format 'pdf' (known: text, timelines, html, markdown, fio-json)");
  }
  EXPECT_THROW(ParseReportFormats("text,"), std::invalid_argument);
  EXPECT_THROW(ParseReportFormats(""), std::invalid_argument);
}

TEST(ReportFormatsTest, TheRunWritesTheTextHtmlAndFioJsonReportsAsTheyRender) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("storbed-formats-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  ReportInput input;
  input.dir = dir.string();
  RunRecord r;
  r.run_id = "001-virtio-blk-seq";
  r.target = "virtio-blk";
  r.accel = "tcg";
  input.records.push_back(r);
  const auto written = WriteReportFiles(input);
  ASSERT_EQ(written, (std::vector<std::string>{(dir / "report.txt").string(),
                                               (dir / "report.html").string(),
                                               (dir / "fio.json").string()}));
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string text = slurp(written[0]), html = slurp(written[1]),
                    fio_json = slurp(written[2]);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(text, FindReportFormat("text").render(input));
  EXPECT_NE(text.find("001-virtio-blk-seq"), std::string::npos);
  EXPECT_EQ(html, FindReportFormat("html").render(input));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(fio_json, FindReportFormat("fio-json").render(input));
  EXPECT_EQ(nlohmann::json::parse(fio_json).at("jobs").size(), 0u);  // the run measured nothing
}

// Issue 38: a job name with terminal escapes in a tampered results.json reached the terminal
// (and report.txt) raw.
TEST(ReportFormatsTest, ControlCharactersFromTheResultsAreWrittenOutInEveryReportFile) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("storbed-escapes-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  ReportInput input;
  input.dir = dir.string();
  RunRecord r;
  r.run_id = "001-virtio-blk-\x1b]0;owned\x07";
  r.target = "virtio-blk";
  r.accel = "tcg";
  r.job.name = "j\x1b[2J";
  r.error = "failed\r\x1b[Kfake ok";
  input.records.push_back(r);
  for (const char* format : {"text", "markdown", "html"}) {
    const std::string path = (dir / (std::string("r.") + format)).string();
    WriteReportFile(FindReportFormat(format), input, path);
    std::ifstream in(path);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    for (char c : bytes)
      EXPECT_TRUE(c == '\n' || c == '\t' || static_cast<unsigned char>(c) >= 0x20)
          << format << " has control byte " << static_cast<int>(c);
    // HTML's own escaping already turns them into entities; text and Markdown spell them out.
    if (std::string(format) != "html") {
      EXPECT_NE(bytes.find("\\x1b"), std::string::npos) << format;
    }
    if (std::string(format) == "text") {
      EXPECT_NE(bytes.find("001-virtio-blk-\\x1b]0;owned\\x07"), std::string::npos);
    }
  }
  std::filesystem::remove_all(dir);
}

// Markdown goes where it is asked to go (storbed report --markdown FILE), never beside
// every run.
TEST(ReportFormatsTest, MarkdownIsOnRequestOnly) {
  EXPECT_EQ(FindReportFormat("markdown").file_name, "");
  EXPECT_EQ(FindReportFormat("html").file_name, "report.html");
}

TEST(ReportFormatsTest, AnUnwritableDirectoryNamesTheFile) {
  ReportInput input;
  input.dir = "/proc/no-such-dir";
  try {
    WriteReportFiles(input);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write the text report /proc/no-such-dir/report.txt: No such file or "
              "directory");
  }
}

// `storbed report DIR --html DIR/results.json` once replaced a night's results with HTML.
TEST(ReportFormatsTest, APathAmongTheResultsOwnFilesIsRefusedAndTheyStayAsTheyWere) {
  namespace fs = std::filesystem;
  const fs::path base =
      fs::temp_directory_path() / ("storbed-report-path-" + std::to_string(getpid()));
  const fs::path dir = base / "res";
  fs::create_directories(dir / "runs");
  for (const char* f : {"results.json", "manifest.json", "runs/console.log", "report.html"})
    std::ofstream(dir / f) << "the " << f << " as the run wrote it";
  fs::create_symlink(dir / "manifest.json", base / "link.json");
  ReportInput input;
  input.dir = dir.string();
  const ReportFormat& html = FindReportFormat("html");
  struct Refused {
    fs::path path;
    std::string is;
  };
  for (const Refused& r :
       {Refused{dir / "results.json", "results.json of the results directory " + dir.string()},
        Refused{dir / "runs" / ".." / "runs/console.log",
                "runs/console.log of the results directory " + dir.string()},
        Refused{base / "link.json", "manifest.json of the results directory " + dir.string()},
        Refused{dir, "the results directory itself"}}) {
    try {
      WriteReportFile(html, input, r.path.string());
      ADD_FAILURE() << r.path << " was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      EXPECT_EQ(std::string(e.what()),
                "the html report's path " + r.path.string() + " is " + r.is +
                    ": writing there would replace what the report reads; give a path outside "
                    "it (or one of its own report files: report.txt, report.html, fio.json)");
    }
  }
  for (const char* f : {"results.json", "manifest.json", "runs/console.log"}) {
    std::ifstream in(dir / f);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), std::string("the ") + f + " as the run wrote it");
  }
  // Its own report file, and a new file beside the results, are written.
  WriteReportFile(html, input, (dir / "report.html").string());
  WriteReportFile(html, input, (dir / "extra.html").string());
  EXPECT_EQ(fs::file_size(dir / "report.html"), html.render(input).size());
  EXPECT_TRUE(fs::exists(dir / "extra.html"));
  fs::remove_all(base);
}

}  // namespace
}  // namespace storbed

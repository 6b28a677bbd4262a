// results.json as `storbed report` reads it: records, or a ResultsFileError naming the
// record and field. Records that load are rendered as the text, markdown and fio-json
// reports, as report would (from a directory with nothing else in it).
#include "fuzz_text.h"
#include "reports/report_formats.h"
#include "results/results_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace storbed;
  ReportInput input;
  input.dir = "/nonexistent/storbed-fuzz";
  try {
    input.records = ParseResults(fuzz::Text(data, size), "results.json");
  } catch (const ResultsFileError&) {
    return 0;
  }
  for (const char* format : {"text", "markdown", "fio-json"}) FindReportFormat(format).render(input);
  return 0;
}

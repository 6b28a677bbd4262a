// The bad-input table's rows about everything else: results directories (`storbed
// report`), standalone agent jobs, and command-line flags of every command.
#include "bad_input_cases.h"

#include <nlohmann/json.hpp>

#include "job.h"
#include "results/run_record.h"

namespace storbed::testing {
namespace {

using Kind = InputFile::Kind;

// One valid results record, as `storbed run` writes it.
nlohmann::json GoodRecord(const std::string& run_id) {
  RunRecord r;
  r.run_id = run_id;
  r.target = "nvme";
  r.accel = "tcg";
  return r;
}

// `record` with a result whose IOPS is `iops`.
nlohmann::json WithIops(nlohmann::json record, double iops) {
  record["result"] = JobResult{};
  record["result"]["iops"] = iops;
  return record;
}

// `record` with a result whose block stats are null.
nlohmann::json WithNull(nlohmann::json record) {
  record["result"] = JobResult{};
  record["result"]["block"] = nullptr;
  return record;
}

// `record` whose round (params.repeat) is null.
nlohmann::json WithNullRepeat(nlohmann::json record) {
  record["params"] = {{"repeat", nullptr}};
  return record;
}

// A results directory whose results.json is `text`, refused by `storbed report`.
BadInput Report(std::string name, std::string text, std::string message) {
  return {std::move(name),
          {{"res/results.json", std::move(text)}},
          {"storbed", "report", "$D/res"},
          "storbed: $D/res/results.json: " + message};
}

// A standalone agent job (a valid one with `edit` applied) refused by storbed-agent.
template <class Edit>
BadInput Agent(std::string name, Edit edit, std::string message) {
  JobSpec spec;
  spec.name = "a";
  spec.target = "$D/target";
  nlohmann::json job = spec;
  edit(job);
  return {std::move(name),
          {{"job.json", job.dump()}, {"target", Repeated(1 << 20, 'x')}},
          {"storbed-agent", "--standalone", "$D/job.json"},
          message};
}

// Any command line, refused with `message` (prefix included).
BadInput Cli(std::string name, std::vector<InputFile> files, std::vector<std::string> argv,
             std::string message) {
  return {std::move(name), std::move(files), std::move(argv), std::move(message)};
}

std::vector<BadInput> Reports() {
  const nlohmann::json good = GoodRecord("001-a");
  nlohmann::json wrong_type = GoodRecord("002-b");
  wrong_type["status"] = 7;
  nlohmann::json no_id = GoodRecord("003-c");
  no_id.erase("run_id");
  return {
      Report("ReportResultsNotJson", "[{\"run_id\": ",
             "not a storbed results file: parse error at line 1, column 13: syntax error while "
             "parsing value - unexpected end of input; expected '[', '{', or a literal"),
      Report("ReportResultsAnObject", "{}",
             "not a storbed results file: expected a list of run records"),
      Report("ReportRecordWithAWrongType", nlohmann::json::array({good, wrong_type}).dump(),
             "record 1: status (run_id \"002-b\"): type must be string, but is number"),
      Report("ReportRecordWithoutRunId", nlohmann::json::array({good, no_id}).dump(),
             "record 1: run_id: missing"),
      Report("ReportRecordIsANumber", "[1]", "record 0: expected a run record object, got 1"),
      // Issue 38: 130k levels (260 KB) crashed report, compare and history import (SIGSEGV).
      Report("ReportResultsNestedDeeperThan64Levels", Repeated(130000, '[') + Repeated(130000, ']'),
             "not a storbed results file: arrays and objects nest deeper than 64 levels (at "
             "byte 65)"),
      {"CompareManifestNestedDeeperThan64Levels",
       {{"a/results.json", nlohmann::json::array({good}).dump()},
        {"a/manifest.json", Repeated(130000, '[') + Repeated(130000, ']')},
        {"b/results.json", nlohmann::json::array({good}).dump()},
        {"b/manifest.json", "{}"}},
       {"storbed", "compare", "$D/a", "$D/b"},
       "storbed: BASE $D/a/manifest.json: arrays and objects nest deeper than 64 levels (at "
       "byte 65)"},
      // Issue 38: compare paired both records of one id and counted the run twice.
      Report("ReportTwoRecordsOfOneRunId", nlohmann::json::array({good, good}).dump(),
             "record 1: run_id \"001-a\" is also record 0's; each run has one record"),
      // Issue 38: compare judged a negative and a 1e308 IOPS like measured ones.
      Report("ReportNegativeIops", nlohmann::json::array({WithIops(good, -5)}).dump(),
             "record 0: result.iops (run_id \"001-a\"): -5 is not a measured value (from 0 to "
             "1e+09)"),
      Report("ReportIopsOf1e308", nlohmann::json::array({WithIops(good, 1e308)}).dump(),
             "record 0: result.iops (run_id \"001-a\"): 1e+308 is not a measured value (from 0 "
             "to 1e+09)"),
      // Issue 38: a null deep in a record was "cannot use at() with null".
      Report("ReportResultWithANullInside", nlohmann::json::array({WithNull(good)}).dump(),
             "record 0: result.block (run_id \"001-a\"): null where a value is expected"),
      // Issue 38: compare said "[json.exception.type_error.302] type must be number, but is
      // null", exit 1.
      Report("ReportRepeatIsNull", nlohmann::json::array({WithNullRepeat(good)}).dump(),
             "record 0: params.repeat (run_id \"001-a\"): null where a value is expected"),
      {"ReportResultsIsAFifo",
       {{"res/results.json", "", Kind::Fifo}},
       {"storbed", "report", "$D/res"},
       "storbed: $D/res/results.json: the results file is a FIFO, not a regular file"},
      {"ReportUnknownFormat",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "$D/res", "--format", "text,csv"},
       "storbed: unknown report format 'csv' (known: text, timelines, html, markdown, "
       "fio-json)"},
      {"ReportFioJsonManifestNotAnObject",
       {{"res/results.json", "[]"}, {"res/manifest.json", "[1, 2]"}},
       {"storbed", "report", "$D/res", "--format", "fio-json"},
       "storbed: $D/res/manifest.json: not a JSON object"},
      // Issue 38: a report's output path among the results' own files, which it would
      // replace (the table checks they are byte-identical after).
      {"ReportHtmlOverItsResults",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "$D/res", "--html", "$D/res/results.json"},
       "storbed: the html report's path $D/res/results.json is results.json of the results "
       "directory $D/res: writing there would replace what the report reads; give a path "
       "outside it (or one of its own report files: report.txt, report.html, fio.json)"},
      {"ReportFioJsonOverItsManifest",
       {{"res/results.json", "[]"}, {"res/manifest.json", "{}"}},
       {"storbed", "report", "$D/res", "--fio-json", "$D/res/manifest.json"},
       "storbed: the fio-json report's path $D/res/manifest.json is manifest.json of the "
       "results directory $D/res: writing there would replace what the report reads; give a "
       "path outside it (or one of its own report files: report.txt, report.html, fio.json)"},
      {"ReportLabWithAResultsDirectory",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "$D/res", "--lab", "--history", "$D/h.db", "--html", "$D/lab.html"},
       "storbed: report --lab: draws every host of the history, not $D/res; give no results "
       "directory"},
      {"ReportLabWithoutHtml",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "--lab", "--history", "$D/h.db"},
       "storbed: report --lab: give --history DB and --html FILE"},
      {"ReportLabNoSuchHistory",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "--lab", "--history", "$D/h.db", "--html", "$D/lab.html"},
       "storbed: report --lab --history $D/h.db: no such history database"},
      {"ReportLabBadBaseline",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "--lab", "--history", "$D/h.db", "--html", "$D/lab.html", "--baseline",
        "last:"},
       "storbed: --baseline last:: nothing after 'last:' (expected last:N, rev:REVISION or "
       "date:FROM[..TO])"},
      {"ReportLabGuardOfAHundred",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "--lab", "--history", "$D/h.db", "--html", "$D/lab.html", "--guard",
        "100"},
       "storbed: report --lab: --guard must be a percentage above 0 and below 100"},
      {"ReportGuardWithoutLab",
       {{"res/results.json", "[]"}},
       {"storbed", "report", "$D/res", "--guard", "20"},
       "storbed: --guard requires --lab"},
      {"ReportWithoutDirectory",
       {{"res/results.json", "[]"}},
       {"storbed", "report"},
       "storbed: report: give the results directory DIR"},
      {"ReportFioJsonManifestNotJson",
       {{"res/results.json", "[]"}, {"res/manifest.json", "{\"started_at\": "}},
       {"storbed", "report", "$D/res", "--fio-json", "$D/f.json"},
       "storbed: $D/res/manifest.json: not JSON: parse error at line 1, column 16: syntax error "
       "while parsing value - unexpected end of input; expected '[', '{', or a literal"},
  };
}

std::vector<BadInput> Agents() {
  const std::vector<std::string> standalone = {"storbed-agent", "--standalone", "$D/job.json"};
  const std::string job_file = "storbed-agent: job file $D/job.json";
  return {
      {"AgentJobNotJson",
       {{"job.json", "{\"name\": "}},
       standalone,
       job_file + ": is not valid JSON: parse error at line 1, column 10: syntax error while "
                  "parsing value - unexpected end of input; expected '[', '{', or a literal"},
      {"AgentJobIsAList", {{"job.json", "[]"}}, standalone, job_file + ": is not a JSON object"},
      {"AgentJobNestedDeeperThan64Levels",
       {{"job.json", "{\"name\": " + Repeated(100000, '[') + Repeated(100000, ']') + "}"}},
       standalone,
       job_file + ": is not valid JSON: arrays and objects nest deeper than 64 levels (at byte "
                  "73)"},
      {"AgentJobFileMissing",
       {},
       standalone,
       job_file + ": cannot be opened: No such file or directory"},
      {"AgentJobFileIsAFifo",
       {{"job.json", "", Kind::Fifo}},
       standalone,
       job_file + ": is a FIFO, not a regular file"},
      Agent(
          "AgentUnknownField", [](auto& j) { j["blocksize"] = 4096; },
          job_file + ", field 'blocksize': is not a job field"),
      Agent(
          "AgentNegativeBs", [](auto& j) { j["bs"] = -4096; },
          job_file + ", field 'bs': must not be negative, got -4096"),
      Agent(
          "AgentBsAsAString", [](auto& j) { j["bs"] = "4k"; },
          job_file + ", field 'bs': expected a whole number from 0 to 18446744073709551615, "
                     "got \"4k\""),
      Agent(
          "AgentMissingTarget", [](auto& j) { j.erase("target"); },
          job_file + ", field 'target': is required but missing"),
      Agent(
          "AgentBsNotAMultipleOf512", [](auto& j) { j["bs"] = 1000; },
          job_file + ", field 'bs': bs must be a nonzero multiple of 512, got 1000"),
      Agent(
          "AgentIodepthZero", [](auto& j) { j["iodepth"] = 0; },
          job_file + ", field 'iodepth': iodepth must be at least 1"),
      Agent(
          "AgentUnknownPattern", [](auto& j) { j["pattern"] = "zigzag"; },
          job_file + ", field 'pattern': unknown pattern 'zigzag' (allowed: sequential, random, "
                     "gappy, strided)"),
      // Regression: a missing target was "cannot open ...: open(O_RDONLY|O_DIRECT) failed"
      // with exit 1, as if the host had failed.
      Agent(
          "AgentTargetMissing", [](auto& j) { j["target"] = "$D/none"; },
          "storbed-agent: job 'a' on $D/none: target: $D/none does not exist"),
      Agent(
          "AgentTargetIsADirectory", [](auto& j) { j["target"] = "$D"; },
          "storbed-agent: job 'a' on $D: target: $D is a directory; a target must be a block "
          "device or a regular file"),
      // Regression: the job ran, and any message naming it printed the ESC raw.
      Agent(
          "AgentNameWithAnEscapeIsRefused", [](auto& j) { j["name"] = "a\x1b[2Jb"; },
          job_file + ", field 'name': holds a control character, got \"a\\u001b[2Jb\""),
      Agent(
          "AgentTargetWithANewlineIsRefused", [](auto& j) { j["target"] = "$D/t\nx"; },
          job_file + ", field 'target': holds a control character, got \"$D/t\\nx\""),
  };
}

std::vector<BadInput> Flags() {
  const InputFile good = {"s.json", kGoodScenario};
  return {
      // Regression: CLI11's own line, without "storbed: ".
      Cli("RunAccelUnknown", {good}, {"storbed", "run", "$D/s.json", "--dry-run", "--accel", "hvf"},
          "storbed: --accel: hvf not in {auto,kvm,tcg}"),
      // Regression: "Value 0 not in range 0.000000 to 1797693134862315708...".
      Cli("RunMaxRunsZero", {good}, {"storbed", "run", "$D/s.json", "--dry-run", "--max-runs", "0"},
          "storbed: --max-runs: expected a whole number of runs, at least 1, got '0'"),
      Cli("RunMaxRunsNotANumber", {good},
          {"storbed", "run", "$D/s.json", "--dry-run", "--max-runs", "many"},
          "storbed: --max-runs: expected a whole number of runs, at least 1, got 'many'"),
      Cli("RunBackendUnknown", {good},
          {"storbed", "run", "$D/s.json", "--dry-run", "--backend", "xen"},
          "storbed: --backend: xen not in {qemu,libvirt}"),
      Cli("RunWithoutScenario", {}, {"storbed", "run", "--dry-run"},
          "storbed: run: give a scenario file, --fio JOB_FILE or --fio-args '...'"),
      Cli("RunScenarioIsDevZero", {}, {"storbed", "run", "/dev/zero", "--dry-run"},
          "storbed: /dev/zero: the scenario file is a character device, not a regular file"),
      Cli("RunAgentIsNotAnElf", {good},
          {"storbed", "run", "$D/s.json", "--dry-run", "--agent", "/etc/passwd", "--work-dir",
           "$D/work"},
          "storbed: --agent /etc/passwd: is not an ELF executable"),
      Cli("RunWorkDirMissing", {good},
          {"storbed", "run", "$D/s.json", "--dry-run", "--work-dir", "$D/nowhere"},
          "storbed: --work-dir $D/nowhere: does not exist"),
      Cli("RunHostLabelNobodyHas",
          {good, {"hosts.json", R"({"hosts": [{"name": "h", "uri": "qemu:///system"}]})"}},
          {"storbed", "run", "$D/s.json", "--inventory", "$D/hosts.json", "--host-label", "gpu",
           "--dry-run", "--work-dir", "$D/work"},
          "storbed: $D/hosts.json: no host has the label \"gpu\""),
      Cli("ImageBuildKernelWithoutModules", {},
          {"storbed", "image", "build", "--kernel", "/boot/x", "--cache", "$D/cache"},
          "storbed: image build: --kernel and --modules go together"),
      Cli("ImageBuildAgentMissing", {},
          {"storbed", "image", "build", "--agent", "$D/agent", "--cache", "$D/cache"},
          "storbed: image build: --agent $D/agent: cannot be read: No such file or directory"),
      Cli("ImageBuildAgentIsDynamic", {},
          {"storbed", "image", "build", "--agent", "/bin/true", "--cache", "$D/cache"},
          "storbed: image build: --agent /bin/true: is dynamically linked; the guest has no "
          "dynamic loader (build it static, as the guest-agent target does)"),
      Cli("ImageBuildKernelMissing", {},
          {"storbed", "image", "build", "--agent", "$AGENT", "--kernel", "$D/vmlinuz", "--modules",
           "/lib/modules", "--cache", "$D/cache"},
          "storbed: image build: --kernel $D/vmlinuz: cannot be read: No such file or directory"),
      // Regression: --dry-run said valid; the real run failed building the image, after
      // making the backings.
      Cli("RunImageCacheIsDevNull",
          {{"s.json", R"({"name": "s", "targets": ["nvme"], "jobs": [{"name": "j"}]})"}},
          {"storbed", "run", "$D/s.json", "--dry-run", "--work-dir", "$D/work", "--image-cache",
           "/dev/null"},
          "storbed: --image-cache /dev/null: is a character device, not a directory"),
      // Regression: exit 1, "cannot create image cache directory ...".
      Cli("ImageBuildCacheUnderAFile", {{"f", "x"}},
          {"storbed", "image", "build", "--agent", "$AGENT", "--cache", "$D/f/cache"},
          "storbed: image build: --cache $D/f/cache: $D/f is a regular file, so no directory "
          "can be made there"),
      Cli("CompareAlphaZero", {}, {"storbed", "compare", "$D/a", "$D/b", "--alpha", "0"},
          "storbed: compare: --alpha must be above 0 and at most 0.5"),
      Cli("CompareNoiseNotANumber", {}, {"storbed", "compare", "$D/a", "$D/b", "--noise", "lots"},
          "storbed: --noise: \"lots\" is not a number"),
      Cli("HistoryWithoutDatabase", {}, {"storbed", "history"},
          "storbed: history: give the database file"),
      Cli("HistoryMinChangeTooLarge", {}, {"storbed", "history", "$D/h.db", "--min-change", "100"},
          "storbed: history: --min-change must be a percentage from 0 to 100"),
      Cli("HistoryDatabaseIsADirectory", {{"db", "", Kind::Dir}}, {"storbed", "history", "$D/db"},
          "storbed: $D/db: cannot open the history database: unable to open database file"),
      Cli("GateAlphaOne", {}, {"storbed", "gate", "$D/res", "--history", "$D/h.db", "--alpha", "1"},
          "storbed: gate: --alpha must be above 0 and at most 0.5"),
      Cli("GateBaselineEmpty", {{"res/results.json", "[]"}},
          {"storbed", "gate", "$D/res", "--history", "$D/h.db", "--baseline", ""},
          "storbed: --baseline : no kind (expected last:N, rev:REVISION or date:FROM[..TO])"),
      Cli("HistoryImportCorruptResults", {{"res/results.json", "[1]"}, {"res/manifest.json", "{}"}},
          {"storbed", "history", "import", "$D/res", "--history", "$D/h.db"},
          "storbed: history import: $D/res/results.json: record 0: expected a run record "
          "object, got 1"),
      // Issue 38: "[json.exception.type_error.306] cannot use value() with null", exit 1.
      Cli("HistoryImportManifestHostIsNull",
          {{"res/results.json", nlohmann::json::array({GoodRecord("001-a")}).dump()},
           {"res/manifest.json", R"({"host": null})"}},
          {"storbed", "history", "import", "$D/res", "--history", "$D/h.db"},
          "storbed: $D/res/manifest.json: host: expected an object, got null"),
      Cli("ReportHistoryWithMarkdownOnly", {{"res/results.json", "[]"}},
          {"storbed", "report", "$D/res", "--history", "$D/h.db", "--markdown", "$D/r.md"},
          "storbed: report --history: draws into the html report; give --html FILE"),
      // Regression: exit 1 as "1 failure", after scanning everything else.
      Cli("CleanupResultsDirMissing", {},
          {"storbed", "cleanup", "--no-libvirt", "--dry-run", "--work-dir", "$D/work", "--results",
           "$D/none"},
          "storbed: cleanup: --results $D/none: does not exist"),
      // Regression: exit 0, "would remove 0 items", for a typo.
      Cli("CleanupWorkDirIsAFile", {{"f", "x"}},
          {"storbed", "cleanup", "--no-libvirt", "--dry-run", "--work-dir", "$D/f"},
          "storbed: cleanup: --work-dir $D/f: is not a directory"),
      // Regression: cleanup waited for a writer on the FIFO forever.
      Cli("CleanupInventoryIsAFifo", {{"inv.json", "", Kind::Fifo}},
          {"storbed", "cleanup", "--dry-run", "--work-dir", "$D/work", "--inventory",
           "$D/inv.json"},
          "storbed: cleanup: $D/inv.json: the inventory is a FIFO, not a regular file"),
      Cli("CleanupUnknownFlag", {}, {"storbed", "cleanup", "--everything"},
          "storbed: The following argument was not expected: --everything"),
      Cli("ScenarioExplainUnknownField", {}, {"storbed", "scenario", "explain", "blocksize"},
          "storbed: no scenario field named 'blocksize'"),
  };
}

}  // namespace

std::vector<BadInput> ToolInputCases() {
  std::vector<BadInput> all;
  for (std::vector<BadInput> (*group)() : {Reports, Agents, Flags})
    for (auto& c : group()) all.push_back(std::move(c));
  return all;
}

}  // namespace storbed::testing

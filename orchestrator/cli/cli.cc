#include "cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backend/accel.h"
#include "backend/interrupt.h"
#include "cli/cleanup_command.h"
#include "cli/compare_command.h"
#include "cli/docs_command.h"
#include "cli/gate_command.h"
#include "cli/history_command.h"
#include "cli/image_cache_command.h"
#include "cli/parse_messages.h"
#include "cli/verdict_options.h"
#include "error.h"
#include "execute/guest_modules.h"
#include "execute/input_checks.h"
#include "execute/round_gate.h"
#include "execute/runner.h"
#include "exit_codes.h"
#include "history/history_db.h"
#include "history/lab_view_build.h"
#include "history/nightly_series.h"
#include "images/binary_checks.h"
#include "images/image_builder.h"
#include "images/kernel_locator.h"
#include "input_file.h"
#include "plan/run_hosts.h"
#include "plan/run_plan.h"
#include "reports/html_lab.h"
#include "reports/report_formats.h"
#include "results/out_dir_claim.h"
#include "results/results_dir.h"
#include "scenario/fio_command_line.h"
#include "scenario/fio_import.h"
#include "scenario/scenario.h"
#include "scenario/scenario_explain.h"
#include "terminal_text.h"
#include "version.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPackageImageCache = "/var/cache/storbed";

// The agent ships beside storbed when installed, and in the build tree's guest-agent/.
std::string DefaultAgentPath() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& candidate : {exe.parent_path() / "storbed-agent",
                                   exe.parent_path().parent_path() / "guest-agent" /
                                       "storbed-agent"})
    if (fs::exists(candidate, ec)) return candidate.string();
  return "storbed-agent";
}

// The package owns /var/cache/storbed (FHS): root uses it once the package made it.
std::string DefaultImageCache() {
  if (const char* dir = std::getenv("STORBED_CACHE")) return dir;
  std::error_code ec;
  if (geteuid() == 0 && fs::is_directory(kPackageImageCache, ec)) return kPackageImageCache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME")) return std::string(xdg) + "/storbed/images";
  if (const char* home = std::getenv("HOME")) return std::string(home) + "/.cache/storbed/images";
  return "/var/tmp/storbed-images";
}

// The out dir filled up: the records go to stderr whole, so none is lost.
int ReportUnsaved(const RunOptions& options, const RunOutcome& outcome) {
  std::cerr << "storbed: " << options.out_dir << " is not up to date: " << outcome.unsaved
            << "\nstorbed: all " << outcome.records.size()
            << " records follow as JSON (results.json's format), so none is lost:\n"
            << nlohmann::json(outcome.records).dump(2) << "\n";
  return kExitFailed;
}

int Run(const RunOptions& options) {
  const RunOutcome outcome = RunScenario(options, std::cerr);
  const ReportInput input{options.out_dir, outcome.records};
  try {
    WriteReportFiles(input);
  } catch (const std::exception& e) {
    std::cerr << "storbed: warning: reports not written: " << e.what() << "\n";
  }
  if (!outcome.unsaved.empty()) return ReportUnsaved(options, outcome);
  std::cout << "\n" << EscapeControlChars(FindReportFormat("text").render(input));
  std::cout << "\nresults: " << options.out_dir << "/results.json, manifest: " << options.out_dir
            << "/manifest.json\n"
            << EfficiencyLine(outcome.io_phase_s, outcome.warmup_s, outcome.wall_s) << "\n";
  if (outcome.interrupted) {
    std::cerr << "storbed: interrupted; finished runs are in " << options.out_dir
              << "/results.json, the rest are marked skipped (interrupted); report: "
              << options.out_dir << "/report.txt\n";
    return kExitInterrupted;
  }
  if (!outcome.failures.empty()) {
    for (const auto& f : outcome.failures) std::cerr << "storbed: run " << f << "\n";
    return kExitRunsFailed;
  }
  return kExitOk;
}

// Plans without side effects: no backing, no image, no results directory.
int DryRunMain(const RunOptions& options) {
  const Scenario scenario = LoadScenarioFor(options);
  const std::vector<RunHost> hosts = HostsFor(options);  // a bad inventory fails here too
  CheckRunInputs(scenario, options);  // the real run's checks, before it creates anything
  if (hosts.size() > 1 || hosts[0].backend != HostBackend::Qemu) {
    std::cerr << "storbed: note: guests would go to";
    for (const auto& h : hosts)
      std::cerr << " " << h.name << " (" << h.uri << ", " << h.max_guests << " at once)";
    std::cerr << "\n";
  }
  if (!options.fio_path.empty() || !options.fio_args.empty()) {
    for (const auto& note : ImportFioSource(options.fio_path, options.fio_args,
                                            ParseFioTargets(options.fio_targets), options.max_runs)
                                .notes)
      std::cerr << "storbed: note: " << note << "\n";
  }
  std::string accel = options.accel.empty() ? scenario.machine.accel : options.accel;
  // auto: the real run's checks short of booting the probe guest (CPU flags, /dev/kvm).
  if (accel == "auto") {
    RealAccelHost host;  // no probe
    accel = ToString(DetectAccel(host, std::nullopt).accel);
  }
  std::cout << RenderDryRun(scenario, PlanDryRun(scenario, accel), accel);
  return kExitOk;
}

// --max-runs: a whole number from 1 (CLI::PositiveNumber printed its range as 0 to 1.8e308).
CLI::Validator RunCountCheck() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 15 &&
                            std::all_of(text.begin(), text.end(), [](unsigned char c) {
                              return std::isdigit(c);
                            });
        if (digits && std::stoull(text) >= 1) return "";
        return "expected a whole number of runs, at least 1, got '" + text + "'";
      },
      "N");
}

// `storbed run`: its options fill `run`; --dry-run sets `dry_run`.
CLI::App* AddRunCommand(CLI::App& app, RunOptions& run, bool& dry_run) {
  auto* run_cmd = app.add_subcommand("run", "Run a scenario and print the results table.");
  auto* scenario_opt = run_cmd->add_option("scenario", run.scenario_path, "Scenario file (JSON)");
  auto* fio_opt = run_cmd->add_option("--fio", run.fio_path,
                                      "Run a fio job file instead (see docs/matrices.md)");
  fio_opt->excludes(scenario_opt);
  auto* fio_args_opt = run_cmd->add_option(
      "--fio-args", run.fio_args,
      "Or a fio command line as pasted, quoted: '--name=a --rw=read ...' (docs/matrices.md)");
  fio_args_opt->excludes(scenario_opt)->excludes(fio_opt);
  run_cmd->add_option("--target", run.fio_targets,
                      "With --fio or --fio-args: targets, e.g. virtio-blk,nvme (default all three)");
  run_cmd->add_flag("--trace", run.trace,
                    "Trace every job that does not set job.trace itself: where each IO's time "
                    "goes (docs/tracing.md); needs direct IO, root and tracefs");
  auto* until = run_cmd->add_flag(
      "--until-conclusive", run.until_conclusive,
      "Interleaved rounds with a look after each: stop once every primary test of --by is "
      "better, worse or no change, once those open are out of the budget's reach, or when "
      "the budget is spent (docs/compare.md)");
  run_cmd->add_option("--by", run.until_by,
                      "With --until-conclusive: the field compared, as compare --by takes it")
      ->needs(until);
  run_cmd->add_option("--budget", run.budget_text,
                      "With --until-conclusive: rounds planned (40), a time (30m, 2h, 900s), "
                      "or both (40,30m); default the scenario's repeats")
      ->needs(until);
  run_cmd
      ->add_option("--alpha", run.alpha,
                   "With --until-conclusive: the significance level over all the looks")
      ->capture_default_str()
      ->needs(until);
  run_cmd
      ->add_option_function<double>(
          "--noise", [&run](double pct) { run.noise = pct / 100; },
          "With --until-conclusive: changes within +-this percent are no change (default 2)")
      ->needs(until);
  run_cmd->add_option("--first-look", run.first_look,
                      "With --until-conclusive: the round of the first look (at least 3)")
      ->capture_default_str()
      ->needs(until);
  run_cmd->add_flag("--dry-run", dry_run,
                    "Validate and print the plan, the boots and a time estimate; create nothing");
  run_cmd->add_option("--out", run.out_dir,
                      "Results directory (default results/<scenario>); an earlier run's "
                      "results there are moved to OUT.earlier-N");
  run_cmd->add_option("--max-runs", run.max_runs,
                      "Refuse a matrix of more runs than this")
      ->capture_default_str()
      ->check(RunCountCheck());
  run_cmd->add_option("--accel", run.accel, "Override the scenario: auto, kvm or tcg")
      ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  run_cmd->add_option("--agent", run.agent_path, "The static storbed-agent binary")
      ->capture_default_str();
  run_cmd->add_option("--image-cache", run.image_cache_dir, "Where built guest images are kept")
      ->capture_default_str();
  run_cmd->add_option("--work-dir", run.work_dir,
                      "Where backing files are made (on a real block device, not tmpfs)")
      ->capture_default_str();
  run_cmd->add_option("--backend", run.backend,
                      "Who starts guests: qemu (default: QEMU as a child of storbed) or libvirt")
      ->check(CLI::IsMember({"qemu", "libvirt"}));
  run_cmd->add_option("--connect", run.connect_uri,
                      "libvirt URI (default qemu:///system); implies --backend libvirt");
  auto* inventory_opt = run_cmd->add_option(
      "--inventory", run.inventory_path,
      "Hosts to spread the guests over, in parallel (JSON, see docs/hosts.md); implies "
      "--backend libvirt");
  run_cmd->add_option("--host-label", run.host_label,
                      "With --inventory: only the hosts carrying this label")
      ->needs(inventory_opt);
  run_cmd->add_option("--allow-pci", run.allow_pci,
                      "A PCI device (0000:03:00.0) that disk.passthrough may hand to a guest; "
                      "repeatable (docs/passthrough.md)");
  return run_cmd;
}

// `storbed image build`: its options fill `image`, `kernel` and `modules`.
CLI::App* AddImageBuildCommand(CLI::App& app, ImageRequest& image, std::string& kernel,
                               std::string& modules) {
  auto* image_cmd = app.add_subcommand("image", "Guest images.");
  image_cmd->require_subcommand(1);
  auto* build_cmd = image_cmd->add_subcommand("build", "Build (or find cached) a guest image.");
  build_cmd->add_option("--kernel", kernel, "Kernel image (default: newest /boot/vmlinuz-*)");
  build_cmd->add_option("--modules", modules, "Its modules directory (holds modules.dep)");
  build_cmd->add_option("--agent", image.agent_path, "The static storbed-agent binary")
      ->capture_default_str();
  build_cmd->add_option("--cache", image.cache_dir, "Image cache directory")->capture_default_str();
  return build_cmd;
}

// What `storbed report` was asked for.
struct ReportArgs {
  std::string dir;
  std::string formats = "text,timelines";
  bool per_repeat = false;
  std::string html_file, markdown_file, fio_json_file;  // write these formats to files
  std::string compare_base;
  std::string history_db;
  bool lab = false;  // the lab page of history_db, no results directory
  std::string lab_baseline = "last:7";  // --lab: each host's gate, as storbed gate's
  double lab_guard_pct = 10;
};

// `storbed report DIR [--format ...] [--per-repeat] [--html FILE] [--markdown FILE]
// [--fio-json FILE] [--compare BASE] [--history DB]`.
CLI::App* AddReportCommand(CLI::App& app, ReportArgs& args) {
  auto* report_cmd = app.add_subcommand(
      "report", "Print the reports of a results directory, without re-running anything.");
  report_cmd->add_option("dir", args.dir, "Results directory (none with --lab)");
  std::string format_help = "Comma-separated formats, printed in that order:";
  for (const auto& f : ReportFormats()) format_help += " " + f.name + " (" + f.help + ");";
  // --output-format: fio's name for it, for `--output-format fio-json`.
  report_cmd->add_option("--format,--output-format", args.formats, format_help)
      ->capture_default_str();
  report_cmd->add_flag("--per-repeat", args.per_repeat,
                       "One table row per run, even where runs repeat a cell");
  report_cmd->add_option("--html", args.html_file,
                         "Write the html report to FILE (then nothing is printed unless "
                         "--format is given)")
      ->type_name("FILE");
  report_cmd->add_option("--markdown", args.markdown_file,
                         "Write the markdown report to FILE (as --html)")
      ->type_name("FILE");
  report_cmd->add_option("--fio-json", args.fio_json_file,
                         "Write the fio-json document (fio's json+ schema) to FILE (as --html)")
      ->type_name("FILE");
  report_cmd->add_option("--compare", args.compare_base,
                         "html and markdown: add the verdicts of DIR (CAND) against this BASE "
                         "results directory")
      ->type_name("BASE");
  report_cmd
      ->add_option("--history", args.history_db,
                   "html: add each cell's nights from this history database (a file or "
                   "postgresql://USER@HOST/DB), with their change points (see storbed "
                   "history)")
      ->type_name("DB");
  auto* lab =
      report_cmd->add_flag("--lab", args.lab,
                           "With --history DB --html FILE and no DIR: the lab page, every host's "
                           "nightly series per cell, the change points (the suite's or one "
                           "host's) and tonight's gate per host");
  report_cmd
      ->add_option("--baseline", args.lab_baseline,
                   "With --lab: the nights each host's gate judges against, as storbed gate "
                   "--baseline (last:N, rev:R, date:FROM[..TO]) within the host's class")
      ->capture_default_str()
      ->needs(lab);
  report_cmd
      ->add_option("--guard", args.lab_guard_pct,
                   "With --lab: the change in percent each host's gate must be able to see, as "
                   "storbed gate --guard")
      ->capture_default_str()
      ->needs(lab);
  return report_cmd;
}

// `storbed report --history DB --lab --html FILE`.
int LabReport(const ReportArgs& args) {
  if (!args.dir.empty())
    throw std::invalid_argument("report --lab: draws every host of the history, not " + args.dir +
                                "; give no results directory");
  if (args.history_db.empty() || args.html_file.empty())
    throw std::invalid_argument("report --lab: give --history DB and --html FILE");
  if (!(args.lab_guard_pct > 0 && args.lab_guard_pct < 100))
    throw std::invalid_argument("report --lab: --guard must be a percentage above 0 and below 100");
  GateOptions gate;
  gate.guard = args.lab_guard_pct / 100;
  const GateBaselineRequest baseline{
      ParseBaseline(args.lab_baseline), args.lab_baseline, {}, false};
  const std::string page = LabPageHtml(BuildLabView(args.history_db, gate, baseline));
  std::ofstream out(args.html_file);
  out << page;
  if (!out.flush()) throw std::runtime_error(args.html_file + ": cannot write the lab page");
  std::cerr << "storbed: wrote the lab page to " << args.html_file << "\n";
  return kExitOk;
}

int Report(const ReportArgs& args, bool format_given) {
  if (args.lab) return LabReport(args);
  if (args.dir.empty()) throw std::invalid_argument("report: give the results directory DIR");
  const auto formats = ParseReportFormats(args.formats);
  ReportInput input{args.dir, LoadResults(args.dir), args.per_repeat, args.compare_base};
  if (!args.history_db.empty()) {
    if (args.html_file.empty())
      throw std::invalid_argument("report --history: draws into the html report; give --html FILE");
    input.history = std::make_shared<HistoryView>(
        HistoryForReport(args.history_db, args.dir, input.records));
  }
  const std::pair<const char*, const std::string*> files[] = {
      {"html", &args.html_file},
      {"markdown", &args.markdown_file},
      {"fio-json", &args.fio_json_file}};
  bool wrote = false;
  for (const auto& [format, path] : files) {
    if (path->empty()) continue;
    WriteReportFile(FindReportFormat(format), input, *path);
    std::cerr << "storbed: wrote the " << format << " report to " << *path << "\n";
    wrote = true;
  }
  if (!wrote || format_given)
    for (const ReportFormat* f : formats) std::cout << EscapeControlChars(f->render(input));
  return kExitOk;
}

// `storbed scenario explain [FIELD] [--markdown]`; returns the explain subcommand.
CLI::App* AddScenarioExplainCommand(CLI::App& app, std::string& field, bool& markdown) {
  auto* scenario_cmd = app.add_subcommand("scenario", "Scenario files.");
  scenario_cmd->require_subcommand(1);
  auto* explain_cmd =
      scenario_cmd->add_subcommand("explain", "Describe scenario fields (all, or one).");
  explain_cmd->add_option("field", field, "A field, e.g. bs or job.bs");
  explain_cmd->add_flag("--markdown", markdown, "The whole reference as Markdown");
  return explain_cmd;
}

// `storbed run` after parsing: checks what the flags cannot say alone, then the dry run or
// the run (its out_dir filled in when not given), and the history append.
int RunCommand(RunOptions& run, bool dry_run, const std::string& history_db) {
  if (run.scenario_path.empty() && run.fio_path.empty() && run.fio_args.empty())
    throw ScenarioError("run: give a scenario file, --fio JOB_FILE or --fio-args '...'");
  if (!run.fio_targets.empty() && run.fio_path.empty() && run.fio_args.empty())
    throw ScenarioError("run: --target applies with --fio or --fio-args only");
  if (run.until_conclusive) ParseBudget(run.budget_text, &run.budget_rounds, &run.budget_s);
  if (!history_db.empty()) CheckHistorySpec(history_db);
  // The records reach the history after the last job: a path that cannot take them is
  // found now, by the dry run too.
  if (!history_db.empty() && !IsPostgresSpec(history_db))
    if (const std::string why = HistoryFileProblem(history_db); !why.empty())
      throw ScenarioError("--history " + history_db + ": " + why);
  if (dry_run) return DryRunMain(run);
  const std::string source = !run.fio_args.empty()  ? "fio-args"
                             : run.fio_path.empty() ? run.scenario_path
                                                    : run.fio_path;
  if (run.out_dir.empty()) run.out_dir = "results/" + fs::path(source).stem().string();
  InstallInterruptHandlers();
  const int exit = Run(run);
  // Only whole runs reach the history: an interrupted one does not.
  if (!history_db.empty() && exit != kExitInterrupted)
    AppendRunToHistory(history_db, run.out_dir, std::cerr);
  return exit;
}

// `storbed image build` after parsing: the paths checked, then the image built and described.
int ImageBuildCommand(ImageRequest& image, const std::string& kernel, const std::string& modules) {
  if (kernel.empty() != modules.empty())
    throw ScenarioError("image build: --kernel and --modules go together");
  if (const std::string why = DirectoryPathProblem(image.cache_dir); !why.empty())
    throw ScenarioError("image build: --cache " + image.cache_dir + ": " + why);
  if (const std::string why = StaticAgentProblem(image.agent_path); !why.empty())
    throw ScenarioError("image build: --agent " + image.agent_path + ": " + why);
  if (!kernel.empty())
    if (const std::string why = BzImageProblem(kernel); !why.empty())
      throw ScenarioError("image build: --kernel " + kernel + ": " + why);
  image.kernel = kernel.empty() ? FindNewestHostKernel() : KernelFromPaths(kernel, modules);
  std::cout << DescribeImage(BuildGuestImage(image));
  return kExitOk;
}

// The one place an error becomes "storbed: <sentence>" and the exit code of its kind. A run
// interrupted says where its finished runs are.
int ReportError(const std::exception& e, const std::string& out_dir) {
  const ErrorKind kind = KindOf(e);
  if (kind == ErrorKind::Interrupted && !out_dir.empty())
    std::cerr << "storbed: interrupted; finished runs are in " << out_dir << "/results.json\n";
  else
    std::cerr << "storbed: " << EscapeControlChars(e.what()) << "\n";
  return ExitCodeFor(kind);
}

}  // namespace

int RunMain(int argc, char** argv) {
  CLI::App app{"storbed: what does the virtual disk path cost, and where?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(kStorbedVersion) + " (" + kGitRevision + ")");

  RunOptions run;
  run.agent_path = DefaultAgentPath();
  run.image_cache_dir = DefaultImageCache();
  bool dry_run = false;
  auto* run_cmd = AddRunCommand(app, run, dry_run);
  run_cmd->add_flag("--quiet", run.quiet, "No progress line on stderr");
  std::string history_db;
  run_cmd->add_option("--history", history_db,
                      "Append the finished run to this history database (an SQLite file, "
                      "created when missing, or postgresql://USER@HOST/DB; see storbed "
                      "history and storbed gate)");

  ImageRequest image;
  image.modules = DefaultGuestModules();
  image.cache_dir = DefaultImageCache();
  image.agent_path = DefaultAgentPath();
  std::string kernel, modules;
  auto* build_cmd = AddImageBuildCommand(app, image, kernel, modules);
  int image_cache_exit = -1;  // set when `image list` or `image gc` ran
  AddImageCacheCommands(*build_cmd->get_parent(), DefaultImageCache(), &image_cache_exit);

  std::string explain_field;
  bool explain_markdown = false;
  auto* explain_cmd = AddScenarioExplainCommand(app, explain_field, explain_markdown);

  ReportArgs report;
  auto* report_cmd = AddReportCommand(app, report);

  // These run inside app.parse(): their exit codes are returned below, what they throw
  // comes out of app.parse().
  int cleanup_exit = 0;
  auto* cleanup_cmd = AddCleanupCommand(app, &cleanup_exit);
  int compare_exit = 0;
  auto* compare_cmd = AddCompareCommand(app, &compare_exit);
  int history_exit = 0;
  auto* history_cmd = AddHistoryCommand(app, &history_exit);
  int gate_exit = 0;
  auto* gate_cmd = AddGateCommand(app, &gate_exit);
  int docs_exit = -1;  // set when `manpage` or `completion` ran
  AddDocsCommands(app, &docs_exit);

  try {
    app.parse(argc, argv);
    if (*cleanup_cmd) return cleanup_exit;
    if (*compare_cmd) return compare_exit;
    if (*history_cmd) return history_exit;
    if (*gate_cmd) return gate_exit;
    if (docs_exit >= 0) return docs_exit;
    if (image_cache_exit >= 0) return image_cache_exit;
    if (*run_cmd) return RunCommand(run, dry_run, history_db);
    if (*build_cmd) return ImageBuildCommand(image, kernel, modules);
    if (*explain_cmd) {
      std::cout << (explain_markdown ? ScenarioReferenceMarkdown() : ExplainFields(explain_field));
      return kExitOk;
    }
    if (*report_cmd) return Report(report, report_cmd->count("--format") > 0);
    return kExitOk;
  } catch (const CLI::ConversionError& e) {
    std::cerr << "storbed: " << ConversionMessage(e.what())
              << "\nRun with --help for more information.\n";
    return kExitBadInput;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One "storbed: " line like every other bad input, then CLI11's hint.
    std::cerr << "storbed: " << e.what() << "\nRun with --help for more information.\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    return ReportError(e, run.out_dir);
  }
}

}  // namespace storbed

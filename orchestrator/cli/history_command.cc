#include "cli/history_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "analysis/run_stats.h"
#include "cli/history_by_host.h"
#include "cli/verdict_options.h"
#include "history/history_migrate.h"
#include "history/history_store.h"
#include "history/nightly_series.h"
#include "reports/compare_input.h"
#include "reports/compare_metrics.h"
#include "reports/number_text.h"
#include "results/out_dir_claim.h"
#include "terminal_text.h"

namespace storbed {
namespace {

struct HistoryArgs {
  std::string db, scenario, cell, metric = "iops", since;
  double min_change_pct = ChangePointOptions{}.min_change * 100;
  bool json = false, by_host = false;
  std::vector<std::string> import_dirs;
  std::string migrate_from, migrate_to;
};

ChangePointOptions ChangeRule(const HistoryArgs& a) {
  ChangePointOptions rule;
  rule.min_change = a.min_change_pct / 100;
  return rule;
}

nlohmann::json ChangeRuleJson(const ChangePointOptions& rule) {
  return {{"unit", "night median"},
          {"max_p", rule.max_p},
          {"min_nights", rule.min_nights},
          {"min_change", rule.min_change},
          {"permutations", rule.permutations},
          {"seed", rule.seed}};
}

// One scenario's sessions as the series of each cell, with change points.
nlohmann::json ScenarioSeries(HistoryStore& store, const std::vector<HistorySession>& sessions,
                              const HistoryArgs& a) {
  nlohmann::json out = {{"scenario", sessions.front().scenario},
                        {"metric", a.metric},
                        {"better", ToString(DirectionOf(a.metric))},
                        {"cells", nlohmann::json::array()}};
  const ChangePointOptions rule = ChangeRule(a);
  out["change_rule"] = ChangeRuleJson(rule);
  for (const HistorySeries& series : NightlySeries(store, sessions, a.metric, a.cell, rule)) {
    nlohmann::json c = {{"cell", series.cell}, {"nights", nlohmann::json::array()}};
    for (size_t i = 0; i < series.nights.size(); ++i) {
      const HistoryNight& n = series.nights[i];
      nlohmann::json night = {{"night", i + 1},           {"session", n.session},
                              {"started_at", n.started_at}, {"revision", n.revision},
                              {"n", n.values.size()},     {"values", n.values},
                              {"environment_changed", n.environment_changed}};
      night["median"] = n.values.empty() ? nlohmann::json() : nlohmann::json(Median(n.values));
      c["nights"].push_back(night);
    }
    c["change_points"] = nlohmann::json::array();
    for (const HistoryChange& cp : series.changes) {
      const HistoryNight& n = series.nights[cp.night];
      c["change_points"].push_back({{"night", cp.night + 1}, {"session", n.session},
                                    {"started_at", n.started_at}, {"revision", n.revision},
                                    {"before", cp.before}, {"after", cp.after},
                                    {"ratio", cp.ratio}, {"p", cp.p}});
    }
    out["cells"].push_back(c);
  }
  return out;
}

// What "no change point" was tested with, as the series' JSON records it.
std::string NoChangeRule(const nlohmann::json& series) {
  const nlohmann::json& rule = series["change_rule"];
  return "nights' medians, p <= " + FormatNumber(rule["max_p"].get<double>(), "%g") +
         " over the scan, at least " + std::to_string(rule["min_nights"].get<int>()) +
         " nights a segment, medians " +
         FormatNumber(rule["min_change"].get<double>() * 100, "%g") + "% apart";
}

std::string RenderSeries(const nlohmann::json& series) {
  std::string out = "scenario " + series["scenario"].get<std::string>() + ", metric " +
                    series["metric"].get<std::string>() + " (better: " +
                    series["better"].get<std::string>() + ")\n";
  for (const auto& c : series["cells"]) {
    out += "\n" + c["cell"].get<std::string>() + "\n  night  started               revision      n  median\n";
    for (const auto& n : c["nights"]) {
      char line[160];
      std::snprintf(line, sizeof line, "  %-6d %-21s %-13s %-2d %s\n", n["night"].get<int>(),
                    n["started_at"].get<std::string>().c_str(),
                    n["revision"].get<std::string>().substr(0, 12).c_str(), n["n"].get<int>(),
                    n["median"].is_null() ? "-" : FormatNumber(n["median"].get<double>()).c_str());
      out += line;
    }
    if (c["change_points"].empty()) out += "  no change point (" + NoChangeRule(series) + ")\n";
    for (const auto& cp : c["change_points"])
      out += "  change at night " + std::to_string(cp["night"].get<int>()) + " (" +
             cp["started_at"].get<std::string>() + ", revision " +
             cp["revision"].get<std::string>() + "): " + FormatNumber(cp["before"].get<double>()) +
             " -> " + FormatNumber(cp["after"].get<double>()) + " (ratio " +
             FormatNumber(cp["ratio"].get<double>(), "%.3f") + ", p " + FormatNumber(cp["p"].get<double>(), "%.2g") +
             ")\n";
  }
  return out;
}

int ShowHistory(const HistoryArgs& a) {
  HistoryStore store(a.db, HistoryStore::Open::Existing);
  const auto names = store.MetricNames();
  if (std::find(names.begin(), names.end(), a.metric) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw std::invalid_argument("history: --metric " + a.metric + ": no run in " + a.db +
                                " has it (metrics: " + (list.empty() ? "none" : list) + ")");
  }
  std::map<std::string, std::vector<HistorySession>> by_scenario;
  for (const HistorySession& s : store.Sessions(a.scenario, a.since))
    by_scenario[s.scenario].push_back(s);
  if (by_scenario.empty())
    throw std::invalid_argument("history: " + a.db + " holds no session" +
                                (a.scenario.empty() ? "" : " of scenario " + a.scenario) +
                                (a.since.empty() ? "" : " since " + a.since));
  nlohmann::json all = nlohmann::json::array();
  for (const auto& [name, sessions] : by_scenario) {
    if (!a.by_host) {
      all.push_back(ScenarioSeries(store, sessions, a));
      continue;
    }
    const ChangePointOptions rule = ChangeRule(a);
    nlohmann::json series =
        LabSeriesJson(name, a.metric, LabSeries(store, sessions, a.metric, a.cell, rule));
    series["change_rule"] = ChangeRuleJson(rule);
    all.push_back(series);
  }
  if (a.json) {
    std::cout << nlohmann::json{{"history", a.db}, {"scenarios", all}}.dump(2) << "\n";
  } else {
    for (const auto& series : all)
      std::cout << EscapeControlChars(a.by_host ? RenderLabSeries(series) : RenderSeries(series));
  }
  return 0;
}

// Appends `results_dir` to `store` and says so in one line.
void Append(HistoryStore& store, const std::string& results_dir, std::ostream& log) {
  const ImportOutcome o = store.Import(results_dir);
  if (o.found_after_break)
    log << "history: " << results_dir << " (session " << o.session.session << ") is in "
        << store.name() << ": the connection broke after the commit was sent, and on "
        << "reconnecting the session was there whole (this import's commit, or another "
        << "writer's of the same directory)\n";
  else if (o.already_there)
    log << "history: " << results_dir << " (session " << o.session.session << ") is in "
        << store.name() << " already; nothing added\n";
  else
    log << "history: " << results_dir << " added to " << store.name() << " as session "
        << o.session.session << " (" << o.runs << " measured runs, scenario " << o.session.scenario
        << ", fingerprint class " << o.session.fingerprint_class << ")\n";
  log.flush();  // one line per directory as it lands, also into a log file
}

int ImportDirs(const HistoryArgs& a) {
  // Every directory is checked before the first is written, so bad input adds nothing;
  // each is read again when it goes in, rather than holding all of them in memory.
  for (const auto& dir : a.import_dirs) {
    // A run still writing it would leave its later runs out for good: the import after it
    // ends finds the session there already.
    if (const std::string pid = LiveWriterOf(dir); !pid.empty())
      throw std::invalid_argument("history import: " + dir + ": a storbed run (pid " + pid +
                                  ") is still writing it; import it after that run ends");
    LoadCompareSide(dir, "history import");  // the same checks and messages as compare
    LoadCompareManifest(dir, "history import");
  }
  HistoryStore store(a.db, HistoryStore::Open::Create);
  for (const auto& dir : a.import_dirs) Append(store, dir, std::cout);
  return 0;
}

int MigrateDb(const HistoryArgs& a) {
  // Migrating one database into itself would write every session back over its own rows.
  if (SameHistoryFile(a.migrate_from, a.migrate_to))
    throw std::invalid_argument("history migrate: FROM " + a.migrate_from + " and TO " +
                                a.migrate_to + " are the same database");
  HistoryStore from(a.migrate_from, HistoryStore::Open::Existing);
  HistoryStore to(a.migrate_to, HistoryStore::Open::Create);
  MigrateHistory(from, to, std::cout);
  return 0;
}

}  // namespace

void AppendRunToHistory(const std::string& db, const std::string& results_dir, std::ostream& log) {
  HistoryStore store(db, HistoryStore::Open::Create);
  Append(store, results_dir, log);
}

CLI::App* AddHistoryCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<HistoryArgs>();
  auto* cmd = app.add_subcommand(
      "history",
      "The nightly history in an SQLite file or on a PostgreSQL server: per cell "
      "the series of a metric and its change points; `history import DIR... "
      "--history DB` fills it.");
  cmd->add_option("db", args->db, kHistoryDbHelp);
  cmd->add_option("--scenario", args->scenario, "Only this scenario's sessions");
  cmd->add_option("--cell", args->cell, "Cells matching this glob or substring");
  cmd->add_option("--metric", args->metric, "The metric (iops, mib_s, p50_us, p99_us, ...)")
      ->capture_default_str();
  cmd->add_option("--since", args->since, "Sessions started at or after this (2026-11-01)");
  cmd->add_option("--min-change", args->min_change_pct,
                  "A change point moves the median by at least this percent")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "The series and change points as JSON");
  cmd->add_flag("--by-host", args->by_host,
                "Every host's series side by side per cell (a night is a UTC date), and "
                "whose each change is: the suite's (every host the same night) or one host's");
  auto* import = cmd->add_subcommand("import", "Append results directories to the history.");
  import->add_option("dirs", args->import_dirs, "Results directories")->required();
  import
      ->add_option("--history", args->db,
                   std::string(kHistoryDbHelp) + "; an SQLite file is created when missing")
      ->required();
  auto* migrate = cmd->add_subcommand(
      "migrate",
      "Copy every session of one history into another (an SQLite file into a lab's "
      "PostgreSQL store), checked by counts and a SHA-256 per session; again adds nothing.");
  migrate->add_option("from", args->migrate_from, "The history to copy (an SQLite file)")
      ->required();
  migrate->add_option("to", args->migrate_to, "The history to copy into (postgresql://...)")
      ->required();
  SetExitCallback(*cmd, exit_code, [args, import, migrate] {
    if (*import) return ImportDirs(*args);
    if (*migrate) return MigrateDb(*args);
    if (args->db.empty()) throw std::invalid_argument("history: give the database file");
    if (!(args->min_change_pct >= 0 && args->min_change_pct < 100))
      throw std::invalid_argument("history: --min-change must be a percentage from 0 to 100");
    return ShowHistory(*args);
  });
  return cmd;
}

}  // namespace storbed

#include "execute/round_gate.h"

#include <cmath>
#include <stdexcept>

#include "judging/verdict.h"
#include "reports/compare.h"

namespace storbed {
namespace {

size_t RepeatOf(const nlohmann::json& params) {
  const auto it = params.find("repeat");
  return it != params.end() && it->is_number_unsigned() ? it->get<size_t>() : 0;
}

std::string Minutes(double s) {
  return s < 90 ? std::to_string(int(std::lround(s))) + " s"
                : std::to_string(int(std::lround(s / 60))) + " min";
}

}  // namespace

void ParseBudget(const std::string& text, uint64_t* rounds, double* seconds) {
  *rounds = 0;
  *seconds = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (part.empty()) throw ScenarioError("--budget '" + text + "': an empty part");
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    const std::string unit = part.substr(used);
    const double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
    if (used == 0 || !(value > 0) || (!unit.empty() && scale == 0))
      throw ScenarioError("--budget '" + text + "': '" + part +
                          "' is neither a number of rounds (40) nor a time (900s, 30m, 2h)");
    if (unit.empty()) {
      if (value != std::floor(value) || value > double(kMaxSequentialRounds))
        throw ScenarioError("--budget '" + text + "': rounds are a whole number up to " +
                            std::to_string(kMaxSequentialRounds) + ", not " + part);
      *rounds = uint64_t(value);
    } else {
      *seconds = value * scale;
    }
  }
}

UntilConclusive UntilConclusiveOf(const RunOptions& options, const Scenario& scenario) {
  if (scenario.order != RunOrder::Interleaved)
    throw ScenarioError(scenario.path + ": order: --until-conclusive needs interleaved rounds, "
                        "and the scenario says " + ToString(scenario.order));
  if (options.until_by.empty())
    throw ScenarioError("--until-conclusive needs --by FIELD: the field whose levels are "
                        "compared (as storbed compare --by takes it)");
  if (DeclaredValues(scenario.expanded, options.until_by).size() < 2)
    throw ScenarioError(scenario.path + ": --by " + options.until_by +
                        ": the scenario does not list two or more values for it");
  UntilConclusive c;
  c.by = options.until_by;
  c.plan.max_rounds = scenario.repeats;
  c.plan.first_look = options.first_look;
  c.budget_s = options.budget_s;
  c.alpha = options.alpha;
  c.noise = options.noise;
  if (const std::string why = VerdictRuleProblem(c.alpha, c.noise * 100); !why.empty())
    throw ScenarioError(why);
  if (c.plan.first_look < 3)
    throw ScenarioError("--first-look " + std::to_string(c.plan.first_look) +
                        ": a paired look needs 3 rounds or more");
  if (c.plan.max_rounds < c.plan.first_look)
    throw ScenarioError(scenario.path + ": repeats " + std::to_string(c.plan.max_rounds) +
                        " rounds leave no look (the first is after " +
                        std::to_string(c.plan.first_look) + "): give --budget ROUNDS");
  return c;
}

LookSummary LookAtRounds(const std::vector<RunRecord>& records, const nlohmann::json& scenario,
                         const UntilConclusive& config, size_t round) {
  std::vector<RunRecord> upto;
  for (const RunRecord& r : records) {
    const size_t repeat = RepeatOf(r.params);
    if (r.status != RunStatus::Warmup && repeat > 0 && repeat <= round) upto.push_back(r);
  }
  const CompareLevels levels =
      SplitLevels(upto, config.by, DeclaredValues(scenario, config.by), /*interleaved=*/true);
  CompareOptions options;
  options.alpha = config.alpha;
  options.noise = config.noise;
  options.by = config.by;
  options.sequential = config.plan;
  const std::vector<CompareSides> pairs = levels.Pairs(false);
  const std::vector<CompareReport> reports = CompareAll(pairs, options);
  LookSummary s;
  s.round = round;
  for (const CompareReport& report : reports) {
    for (const MetricRow& row : report.rows) {
      // A row without a ratio (values of 0: a job with no such figure) can never be decided.
      if (row.role != MetricRole::Primary || (!row.ratio && row.n_base && row.n_cand)) continue;
      ++s.rows;
      const bool decided = row.decided_at.has_value();
      std::string line = row.cell + " " + row.metric;
      if (reports.size() > 1) line += " (" + report.cand_name + ")";
      line += ": " + row.verdict;
      if (row.ratio) line += ", ratio " + FixedText(*row.ratio, "%.3f");
      if (row.ci_low && row.ci_high)
        line += " [" + FixedText(*row.ci_low, "%.3f") + ", " + FixedText(*row.ci_high, "%.3f") + "]";
      if (!decided) line += row.to_decide.empty() ? "; open" : "; open, " + row.to_decide;
      s.lines.push_back(line);
      if (!decided) s.open.push_back(line);
      if (!decided && row.out_of_reach) ++s.out_of_reach;
    }
  }
  return s;
}

RoundGate::RoundGate(UntilConclusive config, const RunPlan& plan, nlohmann::json scenario,
                     RecordsFn records, Manifest& manifest, LogSink& log)
    : config_(std::move(config)),
      scenario_(std::move(scenario)),
      records_(std::move(records)),
      manifest_(manifest),
      sink_(log) {
  // A warm-up belongs to the round of the measured run that follows it.
  size_t next = 0;
  for (size_t i = plan.runs.size(); i-- > 0;) {
    const size_t repeat = RepeatOf(plan.runs[i].params);
    if (repeat > 0) next = repeat;
    round_of_[plan.runs[i].run_id] = repeat > 0 ? repeat : next;
  }
  Write();
}

size_t RoundGate::RoundOf(const PlannedRun& run) const {
  const auto it = round_of_.find(run.run_id);
  return it == round_of_.end() ? 0 : it->second;
}

bool RoundGate::Wanted(const PlannedRun& run) {
  const std::lock_guard<std::mutex> lock(mu_);
  const size_t round = RoundOf(run);
  if (stop_after_ && round > stop_after_) return false;
  if (round <= current_round_) return true;
  // Every round before this one is over: look at those not looked at yet.
  for (size_t r = looked_through_ + 1; r < round && !stop_after_; ++r)
    if (r >= config_.plan.first_look) Look(r);
  looked_through_ = std::max(looked_through_, round - 1);
  if (stop_after_) return false;
  if (config_.budget_s > 0 && current_round_ > 0) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double per_round = elapsed / double(current_round_);
    if (elapsed + per_round > config_.budget_s) {
      LineLog log(sink_, "");
      stop_after_ = current_round_;
      stopped_ = "budget: " + Minutes(config_.budget_s) + " (round " +
                 std::to_string(current_round_ + 1) + " would end after it)";
      log << "until conclusive: stopping after round " << current_round_ << ": "
           << *stopped_ << "\n";
      Write();
      return false;
    }
  }
  current_round_ = round;
  return true;
}

void RoundGate::Look(size_t round) {
  LineLog log(sink_, "");
  LookSummary s;
  try {
    s = LookAtRounds(records_(), scenario_, config_, round);
  } catch (const std::exception& e) {
    log << "until conclusive: the look after round " << round << " failed: " << e.what() << "\n";
    return;
  }
  looks_.push_back(round);
  open_ = s.open;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const size_t rounds_left = config_.plan.max_rounds - std::min(round, config_.plan.max_rounds);
  double eta = elapsed / double(round) * double(rounds_left);
  if (config_.budget_s > 0) eta = std::min(eta, std::max(0.0, config_.budget_s - elapsed));
  log << "until conclusive: look after round " << round << " of " << config_.plan.max_rounds
       << ": " << s.open.size() << " of " << s.rows << " primary tests open; the budget ends in at most "
       << Minutes(eta) << "\n";
  for (const std::string& line : s.lines) log << "  " << line << "\n";
  out_of_reach_looks_ = !s.open.empty() && s.out_of_reach == s.open.size()
                           ? out_of_reach_looks_ + 1 : 0;
  if (s.rows > 0 && s.open.empty()) {
    stop_after_ = round;
    stopped_ = "conclusive at round " + std::to_string(round);
    log << "until conclusive: every primary test decided at round " << round
         << "; the rounds after it are not run\n";
  } else if (StopsOutOfReach(round, out_of_reach_looks_, config_.plan)) {
    stop_after_ = round;
    stopped_ = "out of reach at round " + std::to_string(round) + ": " +
               std::to_string(s.open.size()) + " open tests could not be decided within " +
               std::to_string(config_.plan.max_rounds) + " rounds";
    log << "until conclusive: stopping after round " << round << ": at " << out_of_reach_looks_
         << " looks in a row, none of the " << s.open.size()
         << " open tests could be decided within the budget's " << config_.plan.max_rounds
         << " rounds at any shift its 90% interval allows; the rounds left would buy no "
            "verdict\n";
  }
  Write();
}

void RoundGate::Finish(bool interrupted) {
  const std::lock_guard<std::mutex> lock(mu_);
  if (!stop_after_) {
    for (size_t r = looked_through_ + 1; r <= current_round_ && !stop_after_; ++r)
      if (r >= config_.plan.first_look) Look(r);
    looked_through_ = std::max(looked_through_, current_round_);
  }
  if (interrupted)
    stopped_ = "interrupted in round " + std::to_string(current_round_);
  else if (!stopped_)
    stopped_ = "budget: " + std::to_string(config_.plan.max_rounds) + " rounds";
  Write();
}

void RoundGate::Write() {
  nlohmann::json j = {{"by", config_.by},
                      {"boundary", kSequentialBoundary},
                      {"alpha", config_.alpha},
                      {"noise", config_.noise},
                      {"max_rounds", config_.plan.max_rounds},
                      {"first_look", config_.plan.first_look},
                      {"looks", looks_},
                      {"rounds_run", stop_after_ ? stop_after_ : current_round_},
                      {"open", open_}};
  if (config_.budget_s > 0) j["budget_s"] = config_.budget_s;
  if (stopped_) j["stopped"] = *stopped_;
  manifest_.SetSequential(std::move(j));
}

}  // namespace storbed

// `storbed run --until-conclusive` (docs/compare.md, "Until conclusive"): interleaved rounds
// with a look after each one from the plan's first look on. A look judges what the results
// hold so far, split by the field asked, exactly as `storbed compare --by` judges the
// directory later (reports/compare.h with the sequential plan, judging/sequential.h); the
// rounds stop when every primary test is better, worse or no change, or when the budget
// (the plan's rounds, or a time) is spent. The rounds not needed are not run and leave no
// record; the manifest's "sequential" says what was planned, the looks taken and why the
// rounds stopped, and is rewritten at every look, so Ctrl-C leaves it too.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "execute/line_log.h"
#include "judging/sequential.h"
#include "plan/run_options.h"
#include "plan/run_plan.h"
#include "results/manifest.h"
#include "results/run_record.h"
#include "scenario/scenario.h"

namespace storbed {

struct UntilConclusive {
  std::string by;       // the field compared ("job.trace", "disk.null_latency_ns", "targets")
  SequentialPlan plan;  // max_rounds: the scenario's rounds (repeats)
  double budget_s = 0;  // 0: the rounds are the only budget
  double alpha = 0.01, noise = 0.02;
};

// --budget: "40" (the rounds planned), "30m" / "2h" / "900s" (a time), or both, "40,30m".
// Throws ScenarioError naming what it could not read.
void ParseBudget(const std::string& text, uint64_t* rounds, double* seconds);

// The options' --until-conclusive over `scenario` (its repeats are the rounds planned).
// Throws ScenarioError for an order that is not interleaved, a --by the scenario does not
// vary, or rounds that leave no look.
UntilConclusive UntilConclusiveOf(const RunOptions& options, const Scenario& scenario);

// What one look found: the primary rows and whether all are conclusive.
struct LookSummary {
  size_t round = 0;
  size_t rows = 0;
  std::vector<std::string> lines;  // one per primary row: "virtio-blk rr iops: ..."
  std::vector<std::string> open;   // those of the rows still open
  size_t out_of_reach = 0;         // open rows that the plan's rounds would not decide
};

// Judges the records of rounds up to `round` as compare would (the rows of every level
// against BASE, one family). Throws std::invalid_argument when the field does not split them.
LookSummary LookAtRounds(const std::vector<RunRecord>& records, const nlohmann::json& scenario,
                         const UntilConclusive& config, size_t round);

class RoundGate {
 public:
  using RecordsFn = std::function<std::vector<RunRecord>()>;
  RoundGate(UntilConclusive config, const RunPlan& plan, nlohmann::json scenario,
            RecordsFn records, Manifest& manifest, LogSink& log);

  // False for a run of a round after the rounds stopped. Before the first run of a new
  // round, looks at each round finished since the last look, and checks the time budget.
  bool Wanted(const PlannedRun& run);
  // After the schedule: the look at the last round (when not taken yet) and the record's
  // last word: "conclusive at round N", "budget: K rounds", "budget: T s" or "interrupted".
  void Finish(bool interrupted);

  const std::optional<std::string>& Stopped() const { return stopped_; }

 private:
  size_t RoundOf(const PlannedRun& run) const;
  void Look(size_t round);
  void Write();

  UntilConclusive config_;
  nlohmann::json scenario_;
  RecordsFn records_;
  Manifest& manifest_;
  LogSink& sink_;
  std::map<std::string, size_t> round_of_;  // run_id -> its round (warm-ups: the next one's)
  std::mutex mu_;
  size_t current_round_ = 0;   // the round of the last run let through
  size_t looked_through_ = 0;  // every round up to this one has been looked at
  size_t out_of_reach_looks_ = 0;  // looks in a row at which every open test was out of reach
  size_t stop_after_ = 0;      // 0: not stopped; else no run of a later round runs
  std::optional<std::string> stopped_;
  std::vector<size_t> looks_;
  std::vector<std::string> open_;  // the last look's open rows
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace storbed

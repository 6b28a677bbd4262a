#include "reports/compare_words.h"

#include "reports/number_text.h"

namespace storbed {
namespace {

std::string Runs(size_t n) { return std::to_string(n) + " run" + (n == 1 ? "" : "s"); }

}  // namespace

std::string MethodSentence(const CompareReport& report) {
  const std::string band = FormatPercent(report.options.noise);
  if (report.design == "nights")
    return "the night is the unit: ratio = tonight's median / the baseline nights' level (the "
           "geometric mean of their medians); test and 95% CI: a Student t prediction interval "
           "from the nights' spread; p: against the noise band +-" +
           band + "; \"no change\": the 90% interval inside +-" + band +
           "; \"within drift\": nothing beyond the band, the nights' own drift wider than it";
  const std::string how =
      report.design == "paired by round"
          ? "ratio = CAND / BASE as the mean of the per-round log ratios (interleaved rounds "
            "are blocks: a slow round cancels); test: paired t; 95% CI: t interval"
          : "ratio = CAND / BASE as the Hodges-Lehmann shift of the runs' logs; test: exact "
            "Mann-Whitney (conditional on ties); 95% CI: the inverted test";
  return how + "; one sample = one run; p: against the noise band +-" + band +
         " (the classic p at --noise 0); \"no change\": the 90% interval inside +-" + band +
         " with " + std::to_string(kMinEquivalenceRuns) + " runs a side or more";
}

std::string FamilySentence(const CompareReport& report) {
  const std::string over =
      report.primary.comparisons > 1
          ? " over " + std::to_string(report.primary.comparisons) + " comparisons"
          : "";
  if (report.options.sequential) {
    const SequentialPlan& plan = *report.options.sequential;
    return "judged sequentially (storbed run --until-conclusive): " +
           std::to_string(report.primary.tests) + " primary tests (iops, p50_us, p99_us per cell" +
           over + ") at a look after every round from round " + std::to_string(plan.first_look) +
           " of the " + std::to_string(plan.max_rounds) + " planned, " + kSequentialBoundary +
           ", with Holm's step-down passing a decided test's share on, to a family-wise alpha "
           "of " +
           FormatNumber(report.options.alpha, "%g") +
           " over every look (p adj: none; each verdict names its look and boundary); 95% CI: "
           "the repeated interval, which holds at every look at once; \"no change\": the "
           "repeated 90% interval inside the band (+-" +
           FormatNumber(report.options.noise * 100, "%g") +
           "%); secondary tests in a family of their own, "
           "judged the same way, never the exit code";
  }
  return "judged: " + std::to_string(report.primary.tests) +
         " primary tests (iops, p50_us, p99_us per cell" + over +
         "), p adj by Holm's correction to a family-wise alpha of " +
         FormatNumber(report.options.alpha, "%g") + ", which sets the exit code; " +
         std::to_string(report.secondary.tests) +
         " secondary tests (ladder rung latencies, iops guest/bare-metal) in a Holm family of "
         "their own, shown, never the exit code; mib_s, req_kib and depths are shown side by "
         "side";
}

std::string ResolutionSentence(const Resolution& r) {
  std::string s;
  if (!r.reachable)
    s = "no verdict reachable with these runs at the family's level: " + Runs(r.runs_to_reach) +
        " a side can reach one";
  else if (r.shift)
    s = "resolves ratios beyond " + RatioPair(*r.shift) + " at 80% power";
  else
    s = "no power figure (the runs did not spread)";
  if (r.runs_for_5 || r.runs_for_10) {
    s += "; for at least 80% power a 5% change needs ";
    s += r.runs_for_5 ? "about " + Runs(*r.runs_for_5) + " a side" : "more than 10000 runs";
    s += ", 10% ";
    s += r.runs_for_10 ? "about " + Runs(*r.runs_for_10) : "more than 10000";
  }
  return s;
}

}  // namespace storbed

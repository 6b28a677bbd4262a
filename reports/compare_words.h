// The sentences every rendering of a comparison shares (text, HTML, Markdown, the gate):
// how the ratio and its test were computed, how many tests were judged and corrected, and
// what a cell's runs can resolve.
#pragma once

#include <string>

#include "judging/verdict.h"
#include "reports/compare.h"

namespace storbed {

// "ratio = CAND / BASE: the Hodges-Lehmann shift of the runs' logs; test: exact
// Mann-Whitney; one sample = one run; ...".
std::string MethodSentence(const CompareReport& report);

// "judged: 27 primary tests (iops, p50_us, p99_us per cell) with Holm's correction to a
// family-wise alpha of 0.01; ...".
std::string FamilySentence(const CompareReport& report);

// "resolves ratios beyond 0.93 or 1.08 at 80% power; a 5% change needs about 24 runs a
// side, 10% about 8", or why no verdict is reachable.
std::string ResolutionSentence(const Resolution& r);

}  // namespace storbed

// The correction for many tests: a compare or a gate judges cells x primary metrics at once,
// and a family-wise error rate of alpha needs each test held to a stricter level. Holm's
// step-down procedure: as strong as Bonferroni's guarantee, never less powerful.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace storbed {

// Holm-adjusted p-values, in the order of `p`: the family is every entry that has a value
// (nullopt entries are not tests and stay nullopt). Reject where adjusted < alpha.
std::vector<std::optional<double>> HolmAdjusted(const std::vector<std::optional<double>>& p);

}  // namespace storbed

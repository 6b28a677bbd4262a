// Internal to scenario parsing: checks sections against the field table, expands list
// values into combinations, and turns one job combination into a JobSpec.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "job.h"
#include "scenario/scenario.h"
#include "scenario/scenario_fields.h"

namespace storbed {

class Validator {
 public:
  explicit Validator(std::string path) : path_(std::move(path)) {}

  // Throws ScenarioError("PATH: FIELD: reason").
  [[noreturn]] void Fail(const std::string& field, const std::string& reason) const;

  // Checks `in` against the section's fields; returns it with defaults filled in. A
  // matrix field given as a list stays a list of normalized values.
  nlohmann::json Section(const nlohmann::json& in, const std::string& section,
                         const std::string& where) const;

  // One value of `f`: sizes become bytes; throws through Fail on a bad value.
  nlohmann::json Normalize(const FieldSpec& f, const nlohmann::json& v,
                           const std::string& name) const;

 private:
  // `shown`: the value as the message prints it, when a double would round it (2^64-1).
  void CheckRange(const FieldSpec& f, double v, const std::string& name,
                  const std::string& shown = "") const;
  std::string path_;
};

struct Combination {
  nlohmann::json values;  // the section with one value per field
  nlohmann::json params;  // "<prefix>.<field>" -> value, for the fields that were lists
};

// The cartesian product of a normalized section's list fields (fields in name order,
// the first slowest).
std::vector<Combination> Product(const nlohmann::json& section, const std::string& prefix);

// The JobSpec of one job combination; `where` is "jobs[N]" for messages. `given` is the
// job object as written (to tell an explicit value from a default).
JobSpec BuildJob(const Validator& check, const nlohmann::json& j, const nlohmann::json& given,
                 const std::string& where);

// Resolves a matrix_exclude key ("disk.aio", "bs", "target") to its field; throws
// through Fail for unknown or ambiguous names.
ExcludeRule ParseExcludeRule(const Validator& check, const nlohmann::json& object,
                             const std::string& where);

}  // namespace storbed

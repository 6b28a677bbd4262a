// Scenario fields, declared once as data: name, type, default, range, unit, help.
// The table drives parsing, validation messages and `storbed scenario explain`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed {

// Duration: "50us", "2ms", "1s" or a number of nanoseconds; normalized to nanoseconds.
enum class FieldType {
  Integer, Size, Number, Duration, Bool, String, Enum, TargetList, ExcludeList
};

struct FieldSpec {
  std::string section;  // "scenario", "machine", "disk" or "job"
  std::string name;     // fio's name where fio has the concept
  FieldType type;
  std::string default_json;  // JSON text; "" = required
  double min = 0, max = 0;   // numeric range (inclusive) for Integer, Size and Number
  std::vector<std::string> allowed;  // Enum values, or TargetList items
  std::string unit;
  std::string help;
  // Machine, disk and job fields may hold a JSON list of values (a matrix); false for
  // fields that must have one value (job names, the accelerator).
  bool matrix = true;
};

// Every field a scenario file may hold.
const std::vector<FieldSpec>& ScenarioFields();

// The fields of one section, in declaration order.
std::vector<const FieldSpec*> FieldsOf(const std::string& section);

// A value of the field for messages and docs: sizes with k/m/g/t suffixes when exact,
// durations in the largest exact unit (ns, us, ms, s), whole numbers without exponent.
std::string FormatFieldValue(const FieldSpec& field, double value);

// "50us", "2ms", "1s", "100ns" or a plain number of nanoseconds -> nanoseconds.
// Throws std::invalid_argument.
uint64_t ParseDuration(const nlohmann::json& value);

// "integer", "size", ... for messages and docs.
std::string TypeName(FieldType type);

}  // namespace storbed

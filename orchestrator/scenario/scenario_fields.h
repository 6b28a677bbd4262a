// Scenario fields, declared once as data: name, type, default, range, unit, help.
// The table drives parsing, validation messages and `storbed scenario explain`. Machine,
// disk and job fields are rows bound to their members (common/field.h): the job's live in
// common/job_fields.cc (the agent reads them too), the machine's and the disk's here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "field.h"
#include "scenario/scenario.h"

namespace storbed {

// The machine section's rows and the disk section's, bound to their members.
const std::vector<FieldRow<MachineConfig>>& MachineRows();
const std::vector<FieldRow<DiskConfig>>& DiskRows();

// "disk.queue_size" for &DiskConfig::queue_size: a rule's message names the row.
template <class M>
std::string FieldName(M DiskConfig::*member) {
  return "disk." + RowOf(DiskRows(), member).spec.name;
}
template <class M>
std::string FieldName(M MachineConfig::*member) {
  return "machine." + RowOf(MachineRows(), member).spec.name;
}
template <class M>
std::string FieldName(BlockTunables MachineConfig::*outer, M BlockTunables::*inner) {
  return "machine." + RowAt(MachineRows(), OffsetOf(outer) + OffsetOf(inner)).spec.name;
}

// Every field a scenario file may hold.
const std::vector<FieldSpec>& ScenarioFields();

// The fields of one section, in declaration order.
std::vector<const FieldSpec*> FieldsOf(const std::string& section);

// A value of the field for messages and docs: sizes with k/m/g/t suffixes when exact,
// durations in the largest exact unit (ns, us, ms, s), whole numbers without exponent.
std::string FormatFieldValue(const FieldSpec& field, double value);
// 65536 -> "64k", 1000 -> "1000": a size, exactly.
std::string FormatSizeValue(uint64_t bytes);

// "50us", "2ms", "1s", "100ns" or a plain number of nanoseconds -> nanoseconds.
// Throws std::invalid_argument.
uint64_t ParseDuration(const nlohmann::json& value);

// "integer", "size", ... for messages and docs.
std::string TypeName(FieldType type);

}  // namespace storbed

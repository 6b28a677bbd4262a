// One row per field, bound to its member (fio's option table binds each option to
// offsetof(thread_options, ...)). A row carries what the user sees (name, type, default,
// range, unit, help, fio's name) and how to reach the member, so parsing, validation,
// the JSON wire format, `storbed scenario explain`, docs/scenarios.md and the fio import
// all read the same row. Shared by the agent (JobSpec) and the orchestrator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "strict_json.h"

namespace storbed {

// Duration: "50us", "2ms", "1s" or a number of nanoseconds; normalized to nanoseconds.
enum class FieldType {
  Integer,
  Size,
  Number,
  Duration,
  Bool,
  String,
  Enum,
  TargetList,
  ExcludeList
};

struct FieldSpec {
  std::string section;  // "scenario", "machine", "disk" or "job"
  std::string name;     // fio's name where fio has the concept; also the JSON name
  FieldType type;
  std::string default_json;          // JSON text; "" = required
  double min = 0, max = 0;           // numeric range (inclusive) for Integer, Size and Number
  std::vector<std::string> allowed;  // Enum values, or TargetList items
  std::string unit;
  std::string help;
  // Machine, disk and job fields may hold a JSON list of values (a matrix); false for
  // fields that must have one value (job names, the accelerator).
  bool matrix = true;
  // fio's option of the same meaning and value syntax (the fio import maps it 1:1);
  // "" = fio has none or it needs a rule of its own.
  std::string fio = "";
  // False for members that travel on the wire but are not written in a scenario (the
  // job's target and filesystem, filled in per run).
  bool in_scenario = true;
};

// A field's description, in the order the row tables write it.
inline FieldSpec Spec(std::string section, std::string name, FieldType type,
                      std::string default_json, double min, double max, std::string unit,
                      std::string help, std::vector<std::string> allowed = {},
                      std::string fio = "") {
  FieldSpec f{};
  f.section = std::move(section);
  f.name = std::move(name);
  f.type = type;
  f.default_json = std::move(default_json);
  f.min = min;
  f.max = max;
  f.allowed = std::move(allowed);
  f.unit = std::move(unit);
  f.help = std::move(help);
  f.fio = std::move(fio);
  return f;
}

// A FieldSpec bound to a member of T. `offset` is the member's byte offset in T, so a
// rule can find a member's row (and its name) from the member pointer.
template <class T>
struct FieldRow {
  FieldSpec spec;
  size_t offset = 0;
  std::function<nlohmann::json(const T&)> get;         // member -> JSON value
  std::function<void(T&, const nlohmann::json&)> set;  // JSON value -> member
};

// Byte offset of `member` in T (offsetof for non-standard-layout types).
template <class T, class M>
size_t OffsetOf(M T::*member) {
  static const T probe{};
  return size_t(reinterpret_cast<const char*>(&(probe.*member)) -
                reinterpret_cast<const char*>(&probe));
}

// The names of enum E in declaration order, read from its ToString (which returns "?"
// or throws past the last value): enums keep their one name table.
template <class E>
std::vector<std::string> EnumNames() {
  std::vector<std::string> out;
  for (int i = 0; i < 64; ++i) {
    std::string name;
    try {
      name = ToString(static_cast<E>(i));
    } catch (const std::exception&) {
      break;
    }
    if (name.empty() || name == "?") break;
    out.push_back(name);
  }
  return out;
}

// A row for a plain member (number, bool, string) stored as itself in JSON.
template <class T, class M>
FieldRow<T> Bind(FieldSpec spec, M T::*member) {
  return {std::move(spec), OffsetOf(member),
          [member](const T& t) { return nlohmann::json(t.*member); },
          [member](T& t, const nlohmann::json& v) { t.*member = FromJsonValue<M>(v); }};
}

// A row for an enum member stored as its name; the allowed values come from the enum's
// own name table, `parse` is its Parse function.
template <class T, class E>
FieldRow<T> BindEnum(FieldSpec spec, E T::*member, E (*parse)(const std::string&)) {
  spec.type = FieldType::Enum;
  spec.allowed = EnumNames<E>();
  return {
      std::move(spec), OffsetOf(member),
      [member](const T& t) { return nlohmann::json(ToString(t.*member)); },
      [member, parse](T& t, const nlohmann::json& v) { t.*member = parse(v.get<std::string>()); }};
}

// A row for a member of a nested struct (JobSpec::tunables.read_ahead_kb).
template <class T, class S, class M>
FieldRow<T> BindNested(FieldSpec spec, S T::*outer, M S::*inner) {
  return {std::move(spec), OffsetOf(outer) + OffsetOf(inner),
          [outer, inner](const T& t) { return nlohmann::json(t.*outer.*inner); },
          [outer, inner](T& t, const nlohmann::json& v) { t.*outer.*inner = FromJsonValue<M>(v); }};
}

// The row bound to the member at `offset`; throws std::logic_error when there is none.
template <class T>
const FieldRow<T>& RowAt(const std::vector<FieldRow<T>>& rows, size_t offset) {
  for (const auto& row : rows)
    if (row.offset == offset) return row;
  throw std::logic_error("a member without a field row");
}

// The row bound to `member`.
template <class T, class M>
const FieldRow<T>& RowOf(const std::vector<FieldRow<T>>& rows, M T::*member) {
  return RowAt(rows, OffsetOf(member));
}

// Every row's value of `t`, under the row's name.
template <class T>
void RowsToJson(const std::vector<FieldRow<T>>& rows, const T& t, nlohmann::json& j) {
  for (const auto& row : rows) j[row.spec.name] = row.get(t);
}

// Sets every row present in `j`; a required row (no default) must be present. Throws
// nlohmann::json::exception or std::invalid_argument.
template <class T>
void RowsFromJson(const std::vector<FieldRow<T>>& rows, const nlohmann::json& j, T& t) {
  for (const auto& row : rows) {
    if (j.contains(row.spec.name))
      row.set(t, j.at(row.spec.name));
    else if (row.spec.default_json.empty())
      (void)j.at(row.spec.name);  // throws out_of_range naming the key
  }
}

}  // namespace storbed

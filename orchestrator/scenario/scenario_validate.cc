#include "scenario/scenario_validate.h"

#include <algorithm>
#include <set>

#include "quoted_value.h"
#include "scenario/name_rule.h"

namespace storbed {
namespace {

using nlohmann::json;

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string Qualified(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

}  // namespace

void Validator::Fail(const std::string& field, const std::string& reason) const {
  throw ScenarioError(path_ + ": " + field + ": " + reason);
}

json Validator::Section(const json& in, const std::string& section,
                        const std::string& where) const {
  if (!in.is_object()) Fail(where.empty() ? section : where, "must be a JSON object");
  const auto fields = FieldsOf(section);
  std::vector<std::string> known;
  for (const auto* f : fields) known.push_back(f->name);
  for (const auto& [key, value] : in.items()) {
    if (section == "scenario" && (key == "machine" || key == "disk" || key == "jobs")) continue;
    if (std::find(known.begin(), known.end(), key) == known.end())
      Fail(Qualified(where, key), "unknown field (known: " + Join(known) + ")");
  }
  const bool matrix_section = section != "scenario";
  json out = json::object();
  for (const auto* f : fields) {
    const std::string name = Qualified(where, f->name);
    if (!in.contains(f->name)) {
      if (f->default_json.empty()) Fail(name, "required field is missing");
      out[f->name] = Normalize(*f, json::parse(f->default_json), name);
      continue;
    }
    const json& v = in.at(f->name);
    if (matrix_section && v.is_array()) {
      if (!f->matrix) Fail(name, "takes one value, not a list");
      if (v.empty()) Fail(name, "an empty list gives no runs");
      json values = json::array();
      for (size_t i = 0; i < v.size(); ++i)
        values.push_back(Normalize(*f, v[i], name + "[" + std::to_string(i) + "]"));
      out[f->name] = values;
    } else {
      out[f->name] = Normalize(*f, v, name);
    }
  }
  return out;
}

void Validator::CheckRange(const FieldSpec& f, double v, const std::string& name,
                           const std::string& shown) const {
  if (v < f.min || v > f.max) {
    std::string msg = "value " + (shown.empty() ? FormatFieldValue(f, v) : shown) +
                      " is out of range [" + FormatFieldValue(f, f.min) + ", " +
                      FormatFieldValue(f, f.max) + "]";
    // Sizes and durations carry their unit in the value already.
    if (!f.unit.empty() && f.type != FieldType::Size && f.type != FieldType::Duration)
      msg += " " + f.unit;
    Fail(name, msg);
  }
}

json Validator::Normalize(const FieldSpec& f, const json& v, const std::string& name) const {
  switch (f.type) {
    case FieldType::Integer: {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0 && f.min >= 0))
        Fail(name, "expected a non-negative integer, got " + QuoteJson(v));
      // 2^64-1 read as int64 is -1, which read_ahead_kb took as "leave as is".
      if (v.is_number_unsigned())
        CheckRange(f, double(v.get<uint64_t>()), name, v.dump());
      else
        CheckRange(f, double(v.get<int64_t>()), name);
      return v;
    }
    case FieldType::Size: {
      uint64_t bytes = 0;
      try {
        bytes = ParseSize(v);
      } catch (const std::invalid_argument& e) {
        Fail(name, e.what());
      }
      // A double rounds 2^64-1 up to 2^64, which FormatFieldValue printed as 0.
      CheckRange(f, double(bytes), name, FormatSizeValue(bytes));
      return bytes;
    }
    case FieldType::Number: {
      if (!v.is_number()) Fail(name, "expected a number, got " + v.dump());
      CheckRange(f, v.get<double>(), name);
      return v;
    }
    case FieldType::Duration: {
      uint64_t ns = 0;
      try {
        ns = ParseDuration(v);
      } catch (const std::invalid_argument& e) {
        Fail(name, e.what());
      }
      CheckRange(f, double(ns), name);
      return ns;
    }
    case FieldType::Bool:
      if (!v.is_boolean()) Fail(name, "expected true or false, got " + v.dump());
      return v;
    case FieldType::String:
      if (!v.is_string()) Fail(name, "expected a string, got " + v.dump());
      // Paths and scheduler names are printed in messages and sent to the agent. Names
      // have their own rule (NameProblem), which refuses these characters too.
      if (f.name != "name" && HasControlCharacter(v.get<std::string>()))
        Fail(name, QuotedForMessage(v.get<std::string>()) + " holds a control character");
      if (f.default_json.empty() && v.get<std::string>().empty()) Fail(name, "must not be empty");
      return v;
    case FieldType::Enum: {
      if (!v.is_string() ||
          std::find(f.allowed.begin(), f.allowed.end(), v.get<std::string>()) == f.allowed.end())
        Fail(name, "expected one of " + Join(f.allowed) + ", got " + QuoteJson(v));
      return v;
    }
    case FieldType::TargetList: {
      if (!v.is_array() || v.empty()) Fail(name, "expected a non-empty list of targets");
      std::set<std::string> seen;
      for (const auto& item : v) {
        if (!item.is_string() || std::find(f.allowed.begin(), f.allowed.end(),
                                           item.get<std::string>()) == f.allowed.end())
          Fail(name, "expected targets from " + Join(f.allowed) + ", got " + QuoteJson(item));
        if (!seen.insert(item.get<std::string>()).second)
          Fail(name, "target " + QuoteJson(item) + " is listed twice");
      }
      return v;
    }
    case FieldType::ExcludeList: {
      if (!v.is_array()) Fail(name, "expected a list of objects of field -> value");
      for (size_t i = 0; i < v.size(); ++i)
        ParseExcludeRule(*this, v[i], name + "[" + std::to_string(i) + "]");
      return v;
    }
  }
  return v;
}

std::vector<Combination> Product(const json& section, const std::string& prefix) {
  std::vector<Combination> out = {{json::object(), json::object()}};
  for (const auto& [key, value] : section.items()) {
    const json choices = value.is_array() ? value : json::array({value});
    std::vector<Combination> next;
    for (const auto& partial : out) {
      for (const auto& choice : choices) {
        Combination c = partial;
        c.values[key] = choice;
        if (value.is_array()) c.params[prefix + "." + key] = choice;
        next.push_back(std::move(c));
      }
    }
    out = std::move(next);
  }
  return out;
}

ExcludeRule ParseExcludeRule(const Validator& check, const json& object,
                             const std::string& where) {
  if (!object.is_object() || object.empty())
    check.Fail(where, "expected a non-empty object of field -> value, got " + object.dump());
  ExcludeRule rule;
  for (const auto& [key, value] : object.items()) {
    const std::string name = where + "." + key;
    if (key == "target") {
      const FieldSpec& targets = *FieldsOf("scenario")[2];
      if (!value.is_string() || std::find(targets.allowed.begin(), targets.allowed.end(),
                                          value.get<std::string>()) == targets.allowed.end())
        check.Fail(name, "expected one of " + Join(targets.allowed) + ", got " + QuoteJson(value));
      rule.emplace_back(key, value);
      continue;
    }
    std::vector<const FieldSpec*> found;
    for (const auto& f : ScenarioFields()) {
      if (f.section == "scenario") continue;
      if (key == f.section + "." + f.name || key == f.name) found.push_back(&f);
    }
    if (found.empty())
      check.Fail(name, "no machine, disk or job field is named '" + ValuePrefix(key) + "'");
    if (found.size() > 1) {
      std::vector<std::string> options;
      for (const auto* f : found) options.push_back(f->section + "." + f->name);
      check.Fail(name, "'" + key + "' is ambiguous: write " + Join(options));
    }
    const FieldSpec& f = *found[0];
    rule.emplace_back(f.section + "." + f.name, check.Normalize(f, value, name));
  }
  return rule;
}

bool Matches(const ExcludeRule& rule, const json& values) {
  for (const auto& [key, value] : rule)
    if (!values.contains(key) || values.at(key) != value) return false;
  return true;
}

}  // namespace storbed

#include "results/record_check.h"

#include <functional>
#include <utility>
#include <vector>

#include "analysis/durability.h"
#include "ladder.h"
#include "number_format.h"
#include "result.h"
#include "results/run_record.h"
#include "strict_json.h"

namespace storbed {
namespace {

using nlohmann::json;

bool HasControlCharacter(const std::string& s) {
  for (const unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

// One field's reader: throws with the reason when the value does not fit.
using FieldCheck = std::function<void(const json&)>;

template <class T>
FieldCheck As() {
  return [](const json& v) { (void)v.get<T>(); };
}

// A name printed in reports: control characters would drive the terminal.
FieldCheck PrintableString() {
  return [](const json& v) {
    const std::string text = v.get<std::string>();
    if (HasControlCharacter(text))
      throw std::invalid_argument("holds a control character: " + json(text).dump());
  };
}

FieldCheck Object() {
  return [](const json& v) {
    if (!v.is_object()) throw std::invalid_argument("expected an object, got " + v.dump());
  };
}

// A run's matrix parameters: an object; its round ("repeat", which compare pairs runs by)
// a whole number.
FieldCheck Params() {
  return [](const json& v) {
    Object()(v);
    if (v.contains("repeat") && !v["repeat"].is_number_unsigned())
      throw std::invalid_argument("repeat: expected a whole number, got " + v["repeat"].dump());
  };
}

// The path inside `v` of its first null, "" when it holds none: a record's structs have no
// null members, so that null is what "cannot use at() with null" met.
std::string FirstNullPath(const json& v, const std::string& at = "") {
  if (v.is_null()) return at;
  if (v.is_object())
    for (const auto& [key, item] : v.items())
      if (std::string p = FirstNullPath(item, at + "." + key); !p.empty()) return p;
  if (v.is_array())
    for (size_t i = 0; i < v.size(); ++i)
      if (std::string p = FirstNullPath(v[i], at + "[" + std::to_string(i) + "]"); !p.empty())
        return p;
  return "";
}

FieldCheck RelativePath() {
  return [](const json& v) {
    const std::string why = InsideDirProblem(v.get<std::string>());
    if (!why.empty()) throw std::invalid_argument(why);
  };
}

}  // namespace

std::string InsideDirProblem(const std::string& path) {
  if (path.empty()) return "";
  if (HasControlCharacter(path)) return "holds a control character";
  if (path.front() == '/') return "\"" + path + "\" is absolute: it must stay inside the results directory";
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    if (path.compare(start, end - start, "..") == 0)
      return "\"" + path + "\" leaves the results directory";
    start = end + 1;
  }
  return "";
}

// The figures compare and the history judge by: a negative or absurd one (1e308 IOPS) is a
// tampered file, not a fast disk. "" when they are plausible; else "result.F (run_id): why".
std::string FiguresProblem(const json& result, const std::string& id) {
  if (!result.is_object()) return "";
  static const std::pair<const char*, double> kFigures[] = {
      {"iops", 1e9}, {"mib_s", 1e8}, {"runtime_s", 1e7}};  // 1e9 IOs and 100 TB a second
  for (const auto& [name, most] : kFigures) {
    if (!result.contains(name) || !result[name].is_number()) continue;
    const double v = result[name].get<double>();
    if (!(v >= 0 && v <= most))
      return std::string("result.") + name + id + ": " + FormatDouble(v, "%g") +
             " is not a measured value (from 0 to " + FormatDouble(most, "%g") + ")";
  }
  return "";
}

std::string RecordProblem(const json& record) {
  if (!record.is_object()) return "expected a run record object, got " + record.dump();
  struct Field {
    const char* name;
    bool required;
    FieldCheck check;
  };
  const std::vector<Field> fields = {
      {"run_id", true, PrintableString()},
      {"target", true, PrintableString()},
      {"accel", true, PrintableString()},
      {"status", true, PrintableString()},
      {"job", true, As<JobSpec>()},
      {"machine", false, PrintableString()},
      {"device", false, PrintableString()},
      {"host_name", false, PrintableString()},
      {"backend", false, PrintableString()},
      {"error", false, As<std::string>()},
      {"result", false, As<JobResult>()},
      {"console_log", false, RelativePath()},
      {"wall_s", false, As<double>()},
      {"ladder", false, As<Ladder>()},
      {"durability", false, As<Durability>()},
      {"host", false, Object()},
      {"timelines_file", false, RelativePath()},
      {"params", false, Params()},
  };
  std::string id;
  if (record.contains("run_id") && record["run_id"].is_string())
    id = " (run_id " + json(record["run_id"]).dump(-1, ' ', true) + ")";
  // A newer storbed's record may hold anything: its version is the first thing to say.
  if (record.contains("schema_version") && record["schema_version"].is_number_integer() &&
      record["schema_version"].get<int64_t>() > kResultsSchemaVersion)
    return "schema_version" + id + ": a record of schema_version " +
           record["schema_version"].dump() + " (a newer storbed); this one reads up to " +
           std::to_string(kResultsSchemaVersion);
  for (const Field& f : fields) {
    if (!record.contains(f.name) || record[f.name].is_null()) {
      if (f.required) return std::string(f.name) + id + ": missing";
      continue;
    }
    try {
      f.check(record[f.name]);
    } catch (const std::exception& e) {
      // A null deep inside (result.block) met as jargon: named by its path instead.
      const std::string null_at = FirstNullPath(record[f.name]);
      if (!null_at.empty() && std::string(e.what()).find("null") != std::string::npos)
        return std::string(f.name) + null_at + id + ": null where a value is expected";
      return std::string(f.name) + id + ": " + WithoutJsonTag(e.what());
    }
  }
  // const operator[] of a key that is not there is undefined: a record may lack "result".
  if (const std::string why = FiguresProblem(record.value("result", json()), id); !why.empty())
    return why;
  try {
    (void)record.get<RunRecord>();  // the rules between fields (schema_version)
  } catch (const std::exception& e) {
    return std::string("(record)") + id + ": " + WithoutJsonTag(e.what());
  }
  return "";
}

}  // namespace storbed

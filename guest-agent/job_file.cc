#include "job_file.h"

#include "input_file.h"
#include "strict_json.h"

#include <errno.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace storbed::agent {
namespace {

using nlohmann::json;

struct BadField {
  std::string field;    // "" when no single field is to blame
  std::string problem;  // what from_json said about it
};

bool Rejects(const json& probe, std::string& problem) {
  try {
    (void)probe.get<JobSpec>();
    return false;
  } catch (const std::exception& e) {
    problem = WithoutJsonTag(e.what());
    return true;
  }
}

// from_json's messages do not always say which field was wrong ("type must be number,
// but is string"), and the first failure may hide the next. Put each field alone into
// an otherwise valid job, then take each required field out, to find the culprit.
BadField FindBadField(const json& document, const std::string& whole_problem) {
  JobSpec probe_spec;
  probe_spec.name = "probe";
  probe_spec.target = "/dev/null";
  const json valid = probe_spec;
  std::string problem;
  for (const auto& [key, value] : document.items()) {
    json probe = valid;
    probe[key] = value;
    if (Rejects(probe, problem)) return {key, problem};
  }
  std::vector<std::string> missing;
  for (const auto& [key, value] : valid.items()) {
    if (document.contains(key)) continue;
    json probe = valid;
    probe.erase(key);
    if (Rejects(probe, problem)) missing.push_back(key);
  }
  if (missing.empty()) return {"", whole_problem};
  std::string also;
  for (size_t i = 1; i < missing.size(); ++i) also += (i > 1 ? ", " : "") + missing[i];
  return {missing[0],
          "is required but missing" + (also.empty() ? std::string() : " (so are: " + also + ")")};
}

}  // namespace

JobFileError::JobFileError(const std::string& path, const std::string& field,
                           const std::string& problem)
    : AgentError("job file " + path + (field.empty() ? "" : ", field '" + field + "'") + ": " +
                 problem),
      field_(field) {}

JobSpec ParseJobDocument(const std::string& text, const std::string& path) {
  json document;
  try {
    document = ParseJson(text);
  } catch (const std::invalid_argument& e) {  // nested too deep
    throw JobFileError(path, "", "is not valid JSON: " + std::string(e.what()));
  } catch (const json::exception& e) {
    throw JobFileError(path, "", "is not valid JSON: " + WithoutJsonTag(e.what()));
  }
  if (!document.is_object()) throw JobFileError(path, "", "is not a JSON object");

  const json known = JobSpec{};
  for (const auto& [key, value] : document.items()) {
    if (!known.contains(key)) throw JobFileError(path, key, "is not a job field");
    // nlohmann converts -1 to an unsigned field as 2^32-1 without a word.
    if (known[key].is_number_unsigned() && value.is_number_integer() && !value.is_number_unsigned())
      throw JobFileError(path, key, "must not be negative, got " + value.dump());
  }

  JobSpec spec;
  try {
    spec = document.get<JobSpec>();
  } catch (const std::exception& e) {
    const BadField bad = FindBadField(document, e.what());
    throw JobFileError(path, bad.field, bad.problem);
  }
  // Every message names the job and its target: a raw ESC or newline there would reach
  // the user's terminal (ESC [ 2 J clears it).
  for (const auto& [field, text] : {std::pair<const char*, const std::string&>{"name", spec.name},
                                    {"target", spec.target}})
    if (std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
      throw JobFileError(path, field, "holds a control character, got " + json(text).dump());
  return spec;
}

JobSpec LoadJobFile(const std::filesystem::path& path) {
  std::string text;
  try {
    text = ReadInputFile(path.string(), "job file");
  } catch (const InputFileError& e) {
    // ReadInputFile's message starts with the path, which JobFileError adds again.
    const std::string what = e.what();
    const std::string prefix = path.string() + ": the job file ";
    throw JobFileError(path.string(), "",
                       what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
  }
  return ParseJobDocument(text, path.string());
}

}  // namespace storbed::agent

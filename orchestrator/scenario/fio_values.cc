#include "scenario/fio_values.h"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "quoted_value.h"
#include "scenario/scenario.h"

namespace storbed {

using nlohmann::json;

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string Lower(std::string s) {
  for (auto& c : s) c = std::tolower(static_cast<unsigned char>(c));
  return s;
}

bool ParseBool(const Option& o, Problems& p) {
  const std::string v = Lower(o.value);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  p.Add(o.line,
        "option '" + ValuePrefix(o.key) + "': expected 0 or 1, got '" + ValuePrefix(o.value) + "'");
  return false;
}

std::optional<uint64_t> Bytes(const Option& o, const std::string& text, Problems& p) {
  try {
    return ParseSize(json(text));
  } catch (const std::invalid_argument& e) {
    p.Add(o.line, "option '" + ValuePrefix(o.key) + "': " + e.what());
    return std::nullopt;
  }
}

std::optional<int64_t> Integer(const Option& o, Problems& p) {
  try {
    size_t used = 0;
    const long long v = std::stoll(o.value, &used);
    if (used == o.value.size()) return v;
  } catch (const std::exception&) {
  }
  p.Add(o.line, "option '" + ValuePrefix(o.key) + "': expected a whole number, got '" +
                    ValuePrefix(o.value) + "'");
  return std::nullopt;
}

// fio runtime: seconds, or a number with s, m, h, ms or us.
std::optional<double> Seconds(const Option& o, Problems& p) {
  size_t i = 0;
  while (i < o.value.size() && (std::isdigit(static_cast<unsigned char>(o.value[i])) || o.value[i] == '.')) ++i;
  const std::string unit = Lower(o.value.substr(i));
  static const std::map<std::string, double> kUnits = {
      {"", 1}, {"s", 1}, {"m", 60}, {"h", 3600}, {"ms", 1e-3}, {"us", 1e-6}};
  if (i == 0 || !kUnits.count(unit)) {
    p.Add(o.line, "option '" + ValuePrefix(o.key) + "': expected seconds like 10 or 10s, got '" +
                      ValuePrefix(o.value) + "'");
    return std::nullopt;
  }
  return std::stod(o.value.substr(0, i)) * kUnits.at(unit);
}

}  // namespace storbed

#include "timeline.h"

#include <algorithm>

namespace storbed {

void to_json(nlohmann::json& j, const Timeline& t) {
  j = nlohmann::json{{"name", t.name}, {"unit", t.unit}, {"t_s", t.t_s}, {"value", t.value}};
}

void from_json(const nlohmann::json& j, Timeline& t) {
  t.name = j.at("name").get<std::string>();
  t.unit = j.value("unit", std::string());
  t.t_s = j.at("t_s").get<std::vector<double>>();
  t.value = j.at("value").get<std::vector<double>>();
  if (t.t_s.size() != t.value.size())
    throw std::invalid_argument("timeline " + t.name + ": t_s and value differ in length");
}

TimelineSummary Summarize(const Timeline& t) {
  TimelineSummary s;
  s.samples = t.value.size();
  if (s.samples == 0) return s;
  s.min = *std::min_element(t.value.begin(), t.value.end());
  s.max = *std::max_element(t.value.begin(), t.value.end());
  double sum = 0;
  for (double v : t.value) sum += v;
  s.mean = sum / s.samples;
  double weighted = 0, span = 0;
  for (size_t i = 0; i + 1 < s.samples; ++i) {
    const double dt = t.t_s[i + 1] - t.t_s[i];
    weighted += t.value[i] * dt;
    span += dt;
  }
  s.time_weighted_mean = span > 0 ? weighted / span : s.mean;
  return s;
}

}  // namespace storbed

// A sampled quantity over a job: compact parallel arrays, so a 10 ms sampler over a
// minute stays a few KiB of JSON. Times are seconds on the host's CLOCK_MONOTONIC axis
// relative to the start of the job's IO phase (guest samples are shifted by the
// estimated clock offset before they are stored this way).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed {

struct Timeline {
  std::string name;   // e.g. "guest.vda.inflight", "qemu.d0.depth", "host.vda.depth"
  std::string unit;   // e.g. "requests", "MiB", "%"
  std::vector<double> t_s;
  std::vector<double> value;

  void Add(double t, double v) {
    t_s.push_back(t);
    value.push_back(v);
  }
};

void to_json(nlohmann::json& j, const Timeline& t);
void from_json(const nlohmann::json& j, Timeline& t);

// Mean, min, max and the time-weighted mean (each sample held until the next one).
struct TimelineSummary {
  size_t samples = 0;
  double mean = 0, min = 0, max = 0, time_weighted_mean = 0;
};
TimelineSummary Summarize(const Timeline& t);

}  // namespace storbed

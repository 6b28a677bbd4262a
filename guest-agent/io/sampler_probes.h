// The guest samplers' probes: each reads one /proc or /sys file per sample and turns
// it into one or more series. One interface, one row per probe in kProbes
// (sampler_probes.cc); GuestSampler schedules them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "text_source.h"

namespace storbed {

// A sampled quantity on the absolute CLOCK_MONOTONIC axis (ns).
struct Series {
  std::string name;  // e.g. "guest.vda.inflight"
  std::string unit;
  std::vector<uint64_t> ns;
  std::vector<double> value;
};

class Probe {
 public:
  virtual ~Probe() = default;
  // Reads the file once at now_ns. The baseline read (before the first IO) only sets
  // the starting counters of rates and records nothing. Throws ProcParseError on a
  // malformed, truncated or unreadable file; the caller then stops this probe.
  virtual void Sample(uint64_t now_ns, bool baseline) = 0;
  std::vector<Series>& series() { return series_; }

 protected:
  // The series called `name`, created on first use.
  Series& Get(const std::string& name, const std::string& unit);
  std::vector<Series> series_;
};

enum class ProbeRate { Fast, Slow };  // JobSpec inflight_sample_ms / stats_sample_ms

struct ProbeContext {
  std::optional<std::string> device;  // kernel name of the target's device, if any
  const TextSource* source = nullptr;
};

struct ProbeEntry {
  const char* name;
  ProbeRate rate;
  bool needs_device;
  // Opens the probe's file; throws ProcParseError when it cannot.
  std::unique_ptr<Probe> (*make)(const ProbeContext&);
};

// Every probe there is, in sampling order.
const std::vector<ProbeEntry>& ProbeTable();

}  // namespace storbed

#include "sampling/host_sampler.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace storbed {
namespace {

// A function-local table: registrars run during static initialisation, in any order.
std::vector<HostSamplerEntry>& Table() {
  static std::vector<HostSamplerEntry> table;
  return table;
}

}  // namespace

void to_json(nlohmann::json& j, const HostLayers& h) {
  using nlohmann::json;
  j = json{{"virtqueue", h.virtqueue},
           {"qemu_block", h.qemu_block},
           {"host_device", h.host_device},
           {"qemu_flushes", h.qemu_flushes ? json(*h.qemu_flushes) : json()},
           {"host_flushes", h.host_flushes ? json(*h.host_flushes) : json()},
           {"qemu_thread_cpu", h.qemu_thread_cpu},
           {"timelines", h.timelines},
           {"warnings", h.warnings}};
  for (const auto& [key, value] : h.figures.items()) j[key] = value;
}

double SampleWindow::Rel(uint64_t t_ns) const {
  return (static_cast<double>(t_ns) - static_cast<double>(start_ns)) / 1e9;
}

std::string Span(uint64_t from_ns, uint64_t to_ns) {
  std::ostringstream s;
  s.precision(3);
  s << std::fixed << (static_cast<double>(to_ns - from_ns) / 1e9);
  return s.str();
}

std::string ShortDeviceId(const std::string& id) {
  for (const char* prefix : {"dev-", "ua-"})
    if (id.rfind(prefix, 0) == 0) return id.substr(std::string(prefix).size());
  return id;
}

LayerStats UnavailableLayer(const char* layer, std::string source, std::string reason) {
  LayerStats l;
  l.layer = layer;
  l.source = std::move(source);
  l.reason = std::move(reason);
  return l;
}

void SetSpanBound(LayerStats& l, uint64_t span_ns, uint64_t window_ns) {
  if (!l.available || window_ns == 0) return;
  const double extra = span_ns > window_ns ? static_cast<double>(span_ns - window_ns) /
                                                 static_cast<double>(window_ns)
                                           : 0.0;
  l.has_depth_bound = true;
  l.depth_bound = l.avg_depth * extra;
  l.bound_basis =
      "counters " + Span(0, span_ns) + " s apart around the " + Span(0, window_ns) + " s window";
}

bool RegisterHostSampler(HostSamplerEntry entry) {
  auto& table = Table();
  for (const HostSamplerEntry& e : table) {
    if (e.name == entry.name)
      throw std::logic_error("host sampler '" + entry.name + "' is registered twice");
  }
  table.push_back(std::move(entry));
  return true;
}

std::vector<HostSamplerEntry> HostSamplers() {
  std::vector<HostSamplerEntry> out = Table();
  std::stable_sort(
      out.begin(), out.end(),
      [](const HostSamplerEntry& a, const HostSamplerEntry& b) { return a.order < b.order; });
  return out;
}

}  // namespace storbed

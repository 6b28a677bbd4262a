#include "backend/machine_spec.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "backend/bus_table.h"

namespace storbed {
namespace {

// One table per enum drives both directions and the error text, so they cannot drift.
template <typename E>
using NameTable = std::array<std::pair<E, const char*>, 2>;

constexpr std::array<std::pair<Aio, const char*>, 3> kAioNames{
    {{Aio::Threads, "threads"}, {Aio::Native, "native"}, {Aio::IoUring, "io_uring"}}};
constexpr NameTable<CacheMode> kCacheNames{
    {{CacheMode::None, "none"}, {CacheMode::Writeback, "writeback"}}};
constexpr NameTable<Accel> kAccelNames{{{Accel::Kvm, "kvm"}, {Accel::Tcg, "tcg"}}};
constexpr std::array<std::pair<AgentPushWay, const char*>, 3> kPushNames{
    {{AgentPushWay::Auto, "auto"}, {AgentPushWay::Qga, "qga"}, {AgentPushWay::CloudInit, "cloud-init"}}};

template <typename Table, typename E>
std::string NameOf(const Table& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  throw std::logic_error("enum value without a name");
}

template <typename Table>
auto Parse(const Table& table, const std::string& text, const char* what) {
  std::string allowed;
  for (const auto& [v, name] : table) {
    if (text == name) return v;
    allowed += allowed.empty() ? "" : ", ";
    allowed += std::string("\"") + name + "\"";
  }
  throw std::invalid_argument("unknown " + std::string(what) + " \"" + text +
                              "\"; allowed: " + allowed);
}

}  // namespace

std::string ToString(Bus bus) { return RowOf(bus).name; }
std::string ToString(Aio aio) { return NameOf(kAioNames, aio); }
std::string ToString(CacheMode cache) { return NameOf(kCacheNames, cache); }
std::string ToString(Accel accel) { return NameOf(kAccelNames, accel); }
std::string ToString(AgentPushWay way) { return NameOf(kPushNames, way); }

// The bus names are the bus table's.
Bus ParseBus(const std::string& text) {
  if (const BusRow* row = FindBusRow(text)) return row->bus;
  std::string allowed;
  for (const std::string& name : BusNames())
    allowed += (allowed.empty() ? "\"" : ", \"") + name + "\"";
  throw std::invalid_argument("unknown bus \"" + text + "\"; allowed: " + allowed);
}
Aio ParseAio(const std::string& text) { return Parse(kAioNames, text, "aio"); }
CacheMode ParseCacheMode(const std::string& text) { return Parse(kCacheNames, text, "cache mode"); }
Accel ParseAccel(const std::string& text) { return Parse(kAccelNames, text, "accelerator"); }
AgentPushWay ParseAgentPushWay(const std::string& text) {
  return Parse(kPushNames, text, "agent push way");
}

}  // namespace storbed

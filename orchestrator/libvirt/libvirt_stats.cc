#include "libvirt/libvirt_stats.h"

#include <charconv>
#include <map>

#include "libvirt/virt_handles.h"

namespace storbed {
namespace {

struct StatsRecordsFreer {
  void operator()(virDomainStatsRecordPtr* p) const { virDomainStatsRecordListFree(p); }
};

uint64_t Number(const std::map<std::string, std::string>& entry, const std::string& prefix,
                const std::string& key) {
  auto it = entry.find(key);
  if (it == entry.end()) {
    throw LibvirtStatsError("libvirt's block stats have no " + prefix + key);
  }
  uint64_t value = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw LibvirtStatsError("libvirt's block stat " + prefix + key + " is not a count: \"" +
                            text + "\"");
  }
  return value;
}

}  // namespace

StatFields FieldsOf(const virTypedParameter* params, int count) {
  StatFields out;
  for (int i = 0; i < count; ++i) {
    const virTypedParameter& p = params[i];
    std::string value;
    switch (p.type) {
      case VIR_TYPED_PARAM_INT: value = std::to_string(p.value.i); break;
      case VIR_TYPED_PARAM_UINT: value = std::to_string(p.value.ui); break;
      case VIR_TYPED_PARAM_LLONG: value = std::to_string(p.value.l); break;
      case VIR_TYPED_PARAM_ULLONG: value = std::to_string(p.value.ul); break;
      case VIR_TYPED_PARAM_DOUBLE: value = std::to_string(p.value.d); break;
      case VIR_TYPED_PARAM_BOOLEAN: value = p.value.b ? "1" : "0"; break;
      case VIR_TYPED_PARAM_STRING: value = p.value.s ? p.value.s : ""; break;
      default: continue;
    }
    out.emplace_back(p.field, std::move(value));
  }
  return out;
}

std::optional<BlockCounters> BlockCountersFromStats(const StatFields& fields,
                                                    const std::string& target_dev) {
  // Group block.N.* by N, then pick the N whose name is target_dev.
  std::map<std::string, std::map<std::string, std::string>> blocks;
  for (const auto& [name, value] : fields) {
    if (name.rfind("block.", 0) != 0) continue;
    const size_t dot = name.find('.', 6);
    if (dot == std::string::npos) continue;  // block.count
    blocks[name.substr(6, dot - 6)][name.substr(dot + 1)] = value;
  }
  for (const auto& [index, entry] : blocks) {
    auto name = entry.find("name");
    if (name == entry.end() || name->second != target_dev) continue;
    const std::string prefix = "block." + index + ".";
    BlockCounters c;
    c.device = target_dev;
    c.rd_operations = Number(entry, prefix, "rd.reqs");
    c.rd_bytes = Number(entry, prefix, "rd.bytes");
    c.rd_total_time_ns = Number(entry, prefix, "rd.times");
    c.wr_operations = Number(entry, prefix, "wr.reqs");
    c.wr_bytes = Number(entry, prefix, "wr.bytes");
    c.wr_total_time_ns = Number(entry, prefix, "wr.times");
    c.flush_operations = Number(entry, prefix, "fl.reqs");
    c.flush_total_time_ns = Number(entry, prefix, "fl.times");
    return c;
  }
  return std::nullopt;
}

BlockCounters ReadDomainBlockCounters(virDomainPtr domain, const std::string& uri,
                                      const std::string& target_dev) {
  virDomainPtr domains[] = {domain, nullptr};
  virDomainStatsRecordPtr* records = nullptr;
  // Block only: this runs every sample period, and the vCPU group reads /proc per thread.
  const int n = virDomainListGetStats(domains, VIR_DOMAIN_STATS_BLOCK, &records, 0);
  if (n < 0) ThrowLastLibvirtError(uri, "virDomainListGetStats");
  std::unique_ptr<virDomainStatsRecordPtr, StatsRecordsFreer> owned(records);
  if (n == 0) throw LibvirtStatsError("libvirt returned no stats for the domain");
  const StatFields fields = FieldsOf(records[0]->params, records[0]->nparams);
  std::optional<BlockCounters> c = BlockCountersFromStats(fields, target_dev);
  if (!c) throw LibvirtStatsError("libvirt's block stats have no disk named " + target_dev);
  return *c;
}

}  // namespace storbed

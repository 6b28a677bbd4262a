#include "analysis/durability.h"

namespace storbed {
namespace {

std::string Fsyncs(uint64_t n) { return std::to_string(n) + (n == 1 ? " fsync" : " fsyncs"); }
std::string Flushes(uint64_t n) { return std::to_string(n) + (n == 1 ? " flush" : " flushes"); }

std::string FsyncSetting(const JobSpec& spec) {
  if (spec.fsync_every > 0 && spec.end_fsync)
    return "fsync_every=" + std::to_string(spec.fsync_every) + " and end_fsync";
  if (spec.fsync_every > 0) return "fsync_every=" + std::to_string(spec.fsync_every);
  return "end_fsync";
}

}  // namespace

Durability MarkFlushesDropped(Durability d, const std::string& why) {
  if (!d.checked && d.guest_fsyncs == 0) return d;  // the job claimed no durability
  d.checked = true;
  d.durable = false;
  d.reason = why + ": the guest's " + std::to_string(d.guest_fsyncs) +
             " fsyncs were acknowledged without reaching the host" +
             (d.qemu_flushes ? " (QEMU counted " + std::to_string(*d.qemu_flushes) + " flushes" +
                                   (d.host_flushes ? ", the host device saw " +
                                                         std::to_string(*d.host_flushes)
                                                   : std::string()) +
                                   ")"
                             : std::string());
  return d;
}

std::optional<uint64_t> BareMetalHostFlushes(const JobResult& result) {
  if (!result.block.available) return std::nullopt;
  return result.block.flushes;
}

Durability CheckDurability(const JobSpec& spec, const JobResult& result,
                           std::optional<uint64_t> qemu_flushes,
                           std::optional<uint64_t> host_flushes) {
  Durability d;
  d.guest_fsyncs = result.fsyncs;
  d.qemu_flushes = qemu_flushes;
  d.host_flushes = host_flushes;
  if (spec.rw != Direction::Write) {
    d.reason = "a read job claims no durability";
    return d;
  }
  if (spec.fsync_every == 0 && !spec.end_fsync) {
    d.reason = "the write job sets neither fsync_every nor end_fsync, so it claims no durability";
    return d;
  }
  const std::string setting = FsyncSetting(spec);
  if (result.fsyncs == 0) {
    // fsync_every=N with fewer than N writes and no end_fsync legitimately makes none.
    const bool due = spec.end_fsync || result.ios >= spec.fsync_every;
    d.checked = true;
    d.durable = !due;
    d.reason = due ? "the job set " + setting + " over " + std::to_string(result.ios) +
                         " writes but the agent completed no fsync"
                   : "no fsync was due: " + std::to_string(result.ios) + " writes with " + setting;
    return d;
  }
  // Prefer QEMU's count: it is the flush the guest's fsync becomes. The host device below
  // may legitimately see fewer (a device without a volatile cache drops flushes), so it is
  // only the witness where there is no QEMU (bare metal: the loop device).
  std::string where;
  uint64_t flushes = 0;
  if (qemu_flushes) {
    where = "QEMU";
    flushes = *qemu_flushes;
  } else if (host_flushes) {
    where = "the host device";
    flushes = *host_flushes;
  } else {
    d.reason = "the agent made " + Fsyncs(result.fsyncs) +
               " but neither QEMU's nor the host device's flush count is known";
    return d;
  }
  d.checked = true;
  // QEMU 7.2's emulated NVMe does not account flushes in query-blockstats (measured: 0
  // counted while the host device saw the guest's flush): where the host device saw at
  // least as many flushes as the guest made fsyncs, they did reach it.
  if (where == "QEMU" && flushes < result.fsyncs && host_flushes &&
      *host_flushes >= result.fsyncs) {
    d.reason = "QEMU counted " + Flushes(flushes) + " (its counter misses them) but the host " +
               "device received " + Flushes(*host_flushes) + " for the agent's " +
               Fsyncs(result.fsyncs);
    return d;
  }
  if (flushes < result.fsyncs) {
    d.durable = false;
    d.reason = "the agent made " + Fsyncs(result.fsyncs) + " but " + where + " received only " +
               Flushes(flushes) + ": flushes are dropped on the way" +
               (where == "QEMU" ? " (cache.no-flush=on or cache=unsafe)" : "") +
               ", so the writes are not durable";
    return d;
  }
  d.reason = where + " received " + Flushes(flushes) + " for the agent's " + Fsyncs(result.fsyncs);
  return d;
}

void to_json(nlohmann::json& j, const Durability& d) {
  j = nlohmann::json{{"checked", d.checked},
                     {"durable", d.durable},
                     {"reason", d.reason},
                     {"guest_fsyncs", d.guest_fsyncs}};
  // An unknown count is null, not 0: 0 flushes is a finding, unknown is not.
  j["qemu_flushes"] = d.qemu_flushes ? nlohmann::json(*d.qemu_flushes) : nlohmann::json();
  j["host_flushes"] = d.host_flushes ? nlohmann::json(*d.host_flushes) : nlohmann::json();
}

void from_json(const nlohmann::json& j, Durability& d) {
  d.checked = j.at("checked").get<bool>();
  d.durable = j.at("durable").get<bool>();
  d.reason = j.value("reason", std::string());
  d.guest_fsyncs = j.value("guest_fsyncs", uint64_t{0});
  auto count = [&](const char* key) -> std::optional<uint64_t> {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return j.at(key).get<uint64_t>();
  };
  d.qemu_flushes = count("qemu_flushes");
  d.host_flushes = count("host_flushes");
}

}  // namespace storbed

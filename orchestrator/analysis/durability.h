// The durability cross-check of a write job that asked for fsync: did every guest fsync
// reach QEMU as a flush (or, on bare metal, reach the loop device)?
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "job.h"
#include "result.h"

namespace storbed {

struct Durability {
  bool checked = false;  // false: the job claims no durability, or no flush count is known
  bool durable = true;
  std::string reason;  // a sentence with the numbers, whatever the outcome
  uint64_t guest_fsyncs = 0;
  std::optional<uint64_t> qemu_flushes, host_flushes;
};

// Checks write jobs with fsync_every > 0 or end_fsync. Not durable when the agent made
// fsyncs and QEMU saw fewer flushes (cache.no-flush=on, cache=unsafe), or, when QEMU's
// count is unknown (bare metal), the host device saw fewer; also when the job asked for
// an fsync that the agent never made. Unchecked when neither count is known.
Durability CheckDurability(const JobSpec& spec, const JobResult& result,
                           std::optional<uint64_t> qemu_flushes,
                           std::optional<uint64_t> host_flushes);

// A disk configured to drop flushes (QEMU cache.no-flush=on) makes nothing durable,
// whatever the counts say: QEMU still counts each guest flush it acknowledges. Marks a
// checked result not durable, with `why` and the counts in the reason.
Durability MarkFlushesDropped(Durability d, const std::string& why);

// The bare-metal host flush count: the agent's target is the loop device, so its diskstats
// delta carries the flushes; nullopt when those stats are unavailable.
std::optional<uint64_t> BareMetalHostFlushes(const JobResult& result);

void to_json(nlohmann::json& j, const Durability& d);
void from_json(const nlohmann::json& j, Durability& d);

}  // namespace storbed

// The QEMU block layer counters of one disk from libvirt's bulk domain stats
// (virDomainListGetStats, VIR_DOMAIN_STATS_BLOCK): block.N.{rd,wr,fl}.{reqs,bytes,times}
// of the block.N whose name is the disk's target dev. Works on remote hosts, where QMP
// through libvirt would too but costs a monitor round trip per sampler.
#pragma once

#include <libvirt/libvirt.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/block_counters.h"
#include "error.h"

namespace storbed {

// A typed-parameter list flattened to name/value text ("block.0.rd.reqs", "1234").
using StatFields = std::vector<std::pair<std::string, std::string>>;

// A block.N entry lacks a field the samplers need, or a value is not a number.
class LibvirtStatsError : public Error {
 public:
  explicit LibvirtStatsError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// Flattens libvirt's typed parameters (numbers in decimal, booleans as 0/1).
StatFields FieldsOf(const virTypedParameter* params, int count);

// The counters of the block.N named `target_dev`; nullopt when no entry has that name.
// Throws LibvirtStatsError naming the field when one of rd/wr .reqs/.bytes/.times or
// fl.reqs/.times is missing or not a number (a zero would pass for an idle disk).
std::optional<BlockCounters> BlockCountersFromStats(const StatFields& fields,
                                                    const std::string& target_dev);

// Reads `domain`'s block stats now. Throws LibvirtError for a failed call and
// LibvirtStatsError when the disk is not in the reply.
BlockCounters ReadDomainBlockCounters(virDomainPtr domain, const std::string& uri,
                                      const std::string& target_dev);

}  // namespace storbed

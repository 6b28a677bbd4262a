// reboot per_machine: the guests kept booted between their interleaved rounds, paused
// (GuestTarget::Pause). Each holds what its RunContext refers to (its disk, log line prefix
// and backing lease), so it outlives the unit that booted it. Kept guests together stay
// within a memory budget (half the host's available memory when the run starts): the least
// recently used is shut down to make room, and boots again when its next round needs it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "execute/backing_leases.h"
#include "execute/guest_target.h"
#include "execute/line_log.h"
#include "execute/run_context.h"

namespace storbed {

struct KeptGuest {
  DiskConfig disk;
  std::unique_ptr<LineLog> log;
  std::optional<BackingLeases::Lease> lease;
  std::unique_ptr<RunContext> ctx;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<GuestTarget> guest;  // declared last: goes first
  bool paused = false;
  uint64_t last_used = 0;
  size_t rounds_served = 0;
};

// Which kept guests (key -> memory, last use) to shut down, least recently used first, so
// that `need` more bytes fit `budget`. Pure: the policy, tested alone.
struct KeptSize {
  std::string key;
  uint64_t bytes = 0;
  uint64_t last_used = 0;
};
std::vector<std::string> EvictionsFor(std::vector<KeptSize> kept, uint64_t need, uint64_t budget);

class KeptGuests {
 public:
  explicit KeptGuests(uint64_t memory_budget) : budget_(memory_budget) {}
  ~KeptGuests();  // whatever is left is killed (the unwinding of an interrupted run)
  // The guest kept under `key`, or null; marks it used.
  KeptGuest* Find(const std::string& key);
  KeptGuest& Put(const std::string& key, std::unique_ptr<KeptGuest> guest);
  // Shuts the guest down (resumed first when paused) and forgets it.
  void Release(const std::string& key);
  // Releases the least recently used guests until `bytes` more fit the budget; says so.
  void MakeRoomFor(uint64_t bytes, std::ostream& log);
  // Releases every guest: the rounds are over (or stopped early).
  void ReleaseAll();
  uint64_t budget() const { return budget_; }

 private:
  uint64_t budget_;
  uint64_t clock_ = 0;
  std::map<std::string, std::unique_ptr<KeptGuest>> kept_;
};

}  // namespace storbed

#include "execute/kept_guests.h"

#include <algorithm>

namespace storbed {

std::vector<std::string> EvictionsFor(std::vector<KeptSize> kept, uint64_t need, uint64_t budget) {
  std::sort(kept.begin(), kept.end(),
            [](const KeptSize& a, const KeptSize& b) { return a.last_used < b.last_used; });
  uint64_t used = 0;
  for (const KeptSize& k : kept) used += k.bytes;
  std::vector<std::string> out;
  for (const KeptSize& k : kept) {
    if (used + need <= budget) break;
    out.push_back(k.key);
    used -= k.bytes;
  }
  return out;
}

KeptGuests::~KeptGuests() = default;

KeptGuest* KeptGuests::Find(const std::string& key) {
  const auto it = kept_.find(key);
  if (it == kept_.end()) return nullptr;
  it->second->last_used = ++clock_;
  return it->second.get();
}

KeptGuest& KeptGuests::Put(const std::string& key, std::unique_ptr<KeptGuest> guest) {
  guest->last_used = ++clock_;
  auto& slot = kept_[key];
  slot = std::move(guest);
  return *slot;
}

void KeptGuests::Release(const std::string& key) {
  const auto it = kept_.find(key);
  if (it == kept_.end()) return;
  KeptGuest& k = *it->second;
  if (k.guest) {
    bool runnable = true;
    if (k.paused) {
      try {
        k.guest->Resume();
      } catch (const std::exception& e) {
        k.ctx->log << "  warning: cannot resume the kept " << k.guest->label()
                   << " guest to shut it down: " << e.what() << "\n";
        runnable = false;  // its destructor kills it
      }
    }
    if (runnable) k.guest->Shutdown();
  }
  kept_.erase(it);
}

void KeptGuests::MakeRoomFor(uint64_t bytes, std::ostream& log) {
  std::vector<KeptSize> sizes;
  for (const auto& [key, k] : kept_)
    if (k->guest) sizes.push_back({key, k->guest->MemoryBytes(), k->last_used});
  for (const std::string& key : EvictionsFor(sizes, bytes, budget_)) {
    log << "reboot per_machine: shutting down the kept " << kept_.at(key)->guest->label()
        << " guest: kept guests may use " << (budget_ >> 20)
        << " MiB (half the memory available at the start)\n";
    Release(key);
  }
}

void KeptGuests::ReleaseAll() {
  while (!kept_.empty()) Release(kept_.begin()->first);
}

}  // namespace storbed

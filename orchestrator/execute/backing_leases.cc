#include "execute/backing_leases.h"

#include "backend/disk_driver.h"

namespace storbed {

std::string BackingLeases::KeyOf(const DiskConfig& disk) {
  if (!disk.backing.empty()) return disk.backing;
  if (!DriverHasStorage(disk.driver)) return disk.driver;
  std::string key = std::to_string(disk.size_bytes);
  if (!disk.filesystem.empty())
    key += "-" + disk.filesystem + "-" + std::to_string(disk.fs_file_bytes);
  if (disk.format != "raw") key += "-" + disk.format;
  return key;
}

BackingLeases::Lease::~Lease() {
  if (owner_) owner_->Release(entry_);
}

const Backing& BackingLeases::Lease::backing() const {
  std::lock_guard lock(owner_->mu_);
  return *owner_->entries_[entry_].backing;
}

// Reserves an entry, makes the file without the lock (filling a large file takes long),
// and drops the reservation again if making it failed.
size_t BackingLeases::Make(std::unique_lock<std::mutex>& lock, const DiskConfig& disk,
                           size_t copy) {
  const size_t index = entries_.size();
  entries_.push_back({KeyOf(disk), nullptr, true});
  lock.unlock();
  std::unique_ptr<Backing> made;
  std::exception_ptr error;
  try {
    made = std::make_unique<Backing>(make_(disk, copy));
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error) {
    entries_[index].key = "\n(failed)";  // never matches a key again
    cv_.notify_all();
    std::rethrow_exception(error);
  }
  entries_[index].backing = std::move(made);
  return index;
}

BackingLeases::Lease BackingLeases::Acquire(const DiskConfig& disk) {
  const std::string key = KeyOf(disk);
  std::unique_lock lock(mu_);
  for (;;) {
    size_t copies = 0;
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      if (e.key != key) continue;
      ++copies;
      if (!e.leased && e.backing) {
        e.leased = true;
        return Lease(this, i);
      }
    }
    // A user-named backing cannot be copied: wait for its machine to end.
    if (copies == 0 || disk.backing.empty()) return Lease(this, Make(lock, disk, copies));
    cv_.wait(lock);
  }
}

const Backing& BackingLeases::Shared(const DiskConfig& disk) {
  const std::string key = KeyOf(disk);
  std::unique_lock lock(mu_);
  for (;;) {
    bool being_made = false;
    for (const Entry& e : entries_) {
      if (e.key != key) continue;
      if (e.backing) return *e.backing;
      being_made = true;
    }
    if (!being_made) {
      const size_t index = Make(lock, disk, 0);
      entries_[index].leased = false;
      cv_.notify_all();
      return *entries_[index].backing;
    }
    cv_.wait(lock);
  }
}

void BackingLeases::Release(size_t entry) {
  std::lock_guard lock(mu_);
  entries_[entry].leased = false;
  cv_.notify_all();
}

}  // namespace storbed

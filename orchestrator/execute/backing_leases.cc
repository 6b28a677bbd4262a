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
size_t BackingLeases::Make(std::unique_lock<std::mutex>& lock, const DiskConfig& disk, size_t copy,
                           bool leased) {
  const size_t index = entries_.size();
  entries_.push_back({KeyOf(disk), nullptr, leased});
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
  cv_.notify_all();  // an Acquire may wait for a prepared one
  return index;
}

BackingLeases::Lease BackingLeases::Acquire(const DiskConfig& disk) {
  const std::string key = KeyOf(disk);
  std::unique_lock lock(mu_);
  for (;;) {
    size_t copies = 0;
    bool being_prepared = false;
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      if (e.key != key) continue;
      ++copies;
      if (!e.leased && e.backing) {
        e.leased = true;
        return Lease(this, i);
      }
      being_prepared |= !e.leased && !e.backing;
    }
    // A user-named backing cannot be copied: wait for its machine to end. A prepared one
    // is nearer than a new one.
    if (!being_prepared && (copies == 0 || disk.backing.empty()))
      return Lease(this, Make(lock, disk, copies, true));
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
      return *entries_[Make(lock, disk, 0, false)].backing;
    }
    cv_.wait(lock);
  }
}

bool BackingLeases::Prepare(const DiskConfig& disk) {
  if (!disk.backing.empty()) return false;
  const std::string key = KeyOf(disk);
  std::unique_lock lock(mu_);
  size_t copies = 0;
  for (const Entry& e : entries_) {
    if (e.key != key) continue;
    ++copies;
    if (!e.leased) return true;  // free, or on its way
  }
  try {
    Make(lock, disk, copies, false);
    return true;
  } catch (const std::exception&) {
    return false;  // the machine's own Acquire makes it again and reports why
  }
}

void BackingLeases::Release(size_t entry) {
  std::lock_guard lock(mu_);
  entries_[entry].leased = false;
  cv_.notify_all();
}

}  // namespace storbed

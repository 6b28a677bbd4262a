// Backings for machines that may run at once. QEMU takes a write lock on its image, and two
// guests writing one file would measure each other: a machine that uses the backing in
// place (the QEMU backend, a libvirt daemon on this machine) leases one for its lifetime.
// A free backing of the same disk is reused, else another file is made beside it; a
// user-named backing (one file or device) goes to one machine at a time, others wait.
// Run one machine at a time and the first backing is the only one, as before.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "execute/backing.h"
#include "scenario/scenario.h"

namespace storbed {

class BackingLeases {
 public:
  // Makes the `copy`-th backing (0 = the first) of `disk`. May throw; called without the lock.
  using Maker = std::function<Backing(const DiskConfig& disk, size_t copy)>;
  explicit BackingLeases(Maker make) : make_(std::move(make)) {}

  // Returned to the pool when destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept : owner_(other.owner_), entry_(other.entry_) {
      other.owner_ = nullptr;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    const Backing& backing() const;

   private:
    friend class BackingLeases;
    Lease(BackingLeases* owner, size_t entry) : owner_(owner), entry_(entry) {}
    BackingLeases* owner_;
    size_t entry_;
  };

  // A backing of `disk` for one machine alone. Throws what the maker throws.
  Lease Acquire(const DiskConfig& disk);
  // Makes a free backing of `disk` ahead of its Acquire, unless one is free or on its way
  // (or `disk` names its own backing, which is never copied): the executor fills the next
  // machine's file while the current one boots. A failed make is left for Acquire to
  // meet again and report. Returns whether one is free or being made.
  bool Prepare(const DiskConfig& disk);
  // The first backing of `disk` (made when missing), shared: for hosts that copy it
  // (a remote libvirt host uploads it per machine) and never write it.
  const Backing& Shared(const DiskConfig& disk);

  // "64MiB" disks share backings; a named backing is its own key.
  static std::string KeyOf(const DiskConfig& disk);

 private:
  struct Entry {
    std::string key;
    std::unique_ptr<Backing> backing;  // null while being made
    bool leased = false;               // false while being made: Prepare's, Acquire waits
  };
  void Release(size_t entry);
  size_t Make(std::unique_lock<std::mutex>& lock, const DiskConfig& disk, size_t copy, bool leased);

  Maker make_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;  // never shrinks: leases hold indices
};

}  // namespace storbed

// The guest image cache as a user sees it: `storbed image list` shows what is there and when
// it was last used, `storbed image gc --max-size SIZE` bounds it, least recently used first.
// Entries: <hash>/ (image.json, initrd.cpio) and vmlinux-<kernel sha256> (pvh_kernel.h).
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace storbed {

struct CacheEntry {
  std::string path;            // the entry dir or file
  std::string kind;            // "image" or "kernel"
  std::string kernel_release;  // images: from image.json ("" when unreadable)
  std::string kernel_sha256;   // images: the kernel they boot; kernels: their own
  uint64_t bytes = 0;
  std::time_t last_used = 0;   // mtime: set when built and each time a build finds it
  bool complete = true;        // an image dir without initrd.cpio (a killed build) is not
};

// Every entry of `dir`, least recently used first. Files storbed did not make are left out.
// Throws std::invalid_argument when `dir` is not a directory.
std::vector<CacheEntry> ListImageCache(const std::string& dir);

// The entries to remove so that the rest fits in `max_bytes`: incomplete ones first, then the
// least recently used images, then every kernel no kept image boots.
std::vector<CacheEntry> GcPlan(const std::vector<CacheEntry>& entries, uint64_t max_bytes);

// Marks an entry used now (its mtime); a read-only cache is left as it is.
void MarkCacheEntryUsed(const std::string& path);

// The listing as a table for a person, with the total.
std::string FormatImageCache(const std::vector<CacheEntry>& entries);

}  // namespace storbed

#include "images/image_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "images/file_io.h"
#include "strict_json.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

bool IsHex64(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::time_t MTime(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_mtime : 0;
}

uint64_t TreeBytes(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  return total;
}

CacheEntry ImageEntry(const fs::path& dir) {
  CacheEntry e;
  e.path = dir.string();
  e.kind = "image";
  e.bytes = TreeBytes(dir);
  e.last_used = MTime(dir);
  std::error_code ec;
  e.complete = fs::is_regular_file(dir / "initrd.cpio", ec);
  try {
    const auto j = ParseJson(ReadFileBytes((dir / "image.json").string()));
    e.kernel_release = j.value("kernel_release", "");
    e.kernel_sha256 = j.value("kernel_sha256", "");
  } catch (const std::exception&) {
    e.complete = false;  // no readable record: nothing can trust or reuse it
  }
  return e;
}

std::string Bytes(uint64_t b) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f MiB", double(b) / (1024.0 * 1024.0));
  return out;
}

std::string Date(std::time_t t) {
  char out[32];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M", &tm);
  return out;
}

}  // namespace

std::vector<CacheEntry> ListImageCache(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument("image cache " + dir + ": not a directory");
  std::vector<CacheEntry> out;
  for (const auto& d : fs::directory_iterator(dir, ec)) {
    const std::string name = d.path().filename().string();
    if (d.is_directory(ec) && IsHex64(name)) {
      out.push_back(ImageEntry(d.path()));
    } else if (d.is_regular_file(ec) && name.rfind("vmlinux-", 0) == 0 &&
               IsHex64(name.substr(8))) {
      CacheEntry k;
      k.path = d.path().string();
      k.kind = "kernel";
      k.kernel_sha256 = name.substr(8);
      k.bytes = d.file_size(ec);
      k.last_used = MTime(d.path());
      out.push_back(k);
    }
  }
  if (ec) throw std::invalid_argument("image cache " + dir + ": " + ec.message());
  std::sort(out.begin(), out.end(), [](const CacheEntry& a, const CacheEntry& b) {
    return a.last_used != b.last_used ? a.last_used < b.last_used : a.path < b.path;
  });
  return out;
}

std::vector<CacheEntry> GcPlan(const std::vector<CacheEntry>& entries, uint64_t max_bytes) {
  std::set<std::string> removed;
  auto booted = [&] {
    std::set<std::string> kernels;
    for (const CacheEntry& e : entries)
      if (e.kind == "image" && !removed.count(e.path)) kernels.insert(e.kernel_sha256);
    return kernels;
  };
  // What stays: the images kept and the kernels they boot.
  auto kept_bytes = [&] {
    const std::set<std::string> kernels = booted();
    uint64_t total = 0;
    for (const CacheEntry& e : entries)
      if (e.kind == "image" ? !removed.count(e.path) : kernels.count(e.kernel_sha256) > 0)
        total += e.bytes;
    return total;
  };
  for (const CacheEntry& e : entries)
    if (e.kind == "image" && !e.complete) removed.insert(e.path);
  // `entries` is least recently used first.
  for (const CacheEntry& e : entries) {
    if (kept_bytes() <= max_bytes) break;
    if (e.kind == "image") removed.insert(e.path);
  }
  const std::set<std::string> kernels = booted();
  std::vector<CacheEntry> remove;
  for (const CacheEntry& e : entries)
    if (e.kind == "image" ? removed.count(e.path) > 0 : !kernels.count(e.kernel_sha256))
      remove.push_back(e);
  return remove;
}

void MarkCacheEntryUsed(const std::string& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

std::string FormatImageCache(const std::vector<CacheEntry>& entries) {
  std::ostringstream out;
  uint64_t total = 0;
  char line[256];
  std::snprintf(line, sizeof line, "%-7s  %-18s  %-16s  %-10s  %s\n", "kind", "last used (UTC)",
                "kernel", "size", "entry");
  out << line;
  for (const CacheEntry& e : entries) {
    total += e.bytes;
    const std::string kernel =
        !e.kernel_release.empty() ? e.kernel_release : e.kernel_sha256.substr(0, 12);
    std::snprintf(line, sizeof line, "%-7s  %-18s  %-16s  %-10s  %s%s\n", e.kind.c_str(),
                  Date(e.last_used).c_str(), kernel.c_str(), Bytes(e.bytes).c_str(),
                  fs::path(e.path).filename().c_str(), e.complete ? "" : " (incomplete)");
    out << line;
  }
  out << entries.size() << " entries, " << Bytes(total) << "\n";
  return out.str();
}

}  // namespace storbed

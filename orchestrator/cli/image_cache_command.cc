#include "cli/image_cache_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/verdict_options.h"
#include "images/image_cache.h"
#include "scenario/scenario.h"

namespace storbed {
namespace {

void RemoveEntries(const std::vector<CacheEntry>& entries, bool dry_run) {
  for (const CacheEntry& e : entries) {
    std::cout << (dry_run ? "would remove " : "removing ") << e.path << "\n";
    if (dry_run) continue;
    std::error_code ec;
    std::filesystem::remove_all(e.path, ec);
    if (ec) throw std::runtime_error("image gc: cannot remove " + e.path + ": " + ec.message());
  }
}

}  // namespace

void AddImageCacheCommands(CLI::App& image_cmd, const std::string& default_cache, int* exit_code) {
  struct Args {
    std::string cache, max_size = "1g";
    bool dry_run = false;
  };
  auto args = std::make_shared<Args>();
  args->cache = default_cache;
  auto* list = image_cmd.add_subcommand(
      "list", "List the cached guest images and kernels, least recently used first.");
  list->add_option("--cache", args->cache, "Image cache directory")->capture_default_str();
  SetExitCallback(*list, exit_code, [args] {
    std::cout << FormatImageCache(ListImageCache(args->cache));
    return 0;
  });
  auto* gc = image_cmd.add_subcommand(
      "gc",
      "Bound the image cache: remove incomplete images, then the least recently used images "
      "until the rest fits in --max-size, then kernels no image boots.");
  gc->add_option("--cache", args->cache, "Image cache directory")->capture_default_str();
  gc->add_option("--max-size", args->max_size, "What the cache may keep (4g, 512m, 0)")
      ->capture_default_str();
  gc->add_flag("--dry-run", args->dry_run, "Say what would be removed; remove nothing");
  SetExitCallback(*gc, exit_code, [args] {
    uint64_t max_bytes = 0;
    try {
      max_bytes = ParseSize(args->max_size);
    } catch (const std::exception& e) {
      throw std::invalid_argument("image gc: --max-size " + args->max_size + ": " + e.what());
    }
    const std::vector<CacheEntry> entries = ListImageCache(args->cache);
    const std::vector<CacheEntry> plan = GcPlan(entries, max_bytes);
    RemoveEntries(plan, args->dry_run);
    uint64_t freed = 0;
    for (const CacheEntry& e : plan) freed += e.bytes;
    std::cout << (args->dry_run ? "would free " : "freed ") << freed / (1024 * 1024)
              << " MiB in " << plan.size() << " entries; " << entries.size() - plan.size()
              << " kept\n";
    return 0;
  });
}

}  // namespace storbed

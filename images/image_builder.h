// Builds (or finds in the cache) the guest image: the kernel as is, plus a newc initramfs with
// storbed-agent as /init and the kernel modules the guest's disks and agent channel need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "images/kernel_locator.h"

namespace storbed {

struct ImageRequest {
  GuestKernel kernel;
  std::string agent_path;  // the static storbed-agent binary
  // Module names to load, in order (modules.dep adds what they need): the caller's choice
  // (execute/guest_modules.h), so the image builder knows nothing of buses.
  std::vector<std::string> modules;
  std::string cache_dir;  // images live in cache_dir/<content_hash>/
};

struct GuestImage {
  std::string kernel_path;   // the request's kernel image, not copied
  // What QEMU boots: cache_dir/vmlinux-<kernel sha256> (pvh_kernel.h) or kernel_path, and
  // a note saying which and why.
  std::string boot_kernel_path, boot_kernel_note;
  std::string initrd_path;   // cache_dir/<content_hash>/initrd.cpio
  std::string content_hash;  // sha256 over everything that goes into the initrd
  std::string kernel_release;
  std::string kernel_sha256;         // of the kernel image
  // Of config-<release> beside the kernel image (Debian's /boot layout), "" when absent:
  // two builds of one release with different configs are different kernels.
  std::string kernel_config_sha256;
  std::vector<std::string> modules;  // load order, names
  std::vector<std::string> builtin;  // requested or needed, but built into the kernel
  bool from_cache = false;
  uint64_t initrd_bytes = 0;
};

// Resolves modules, hashes the inputs and writes cache_dir/<hash>/initrd.cpio and image.json
// unless they are there already (then from_cache is true). Files are written under temporary
// names and renamed, so a killed build never leaves a half image to be reused. Throws
// ImageError naming the file at fault (agent, kernel, modules.dep, a module, the cache).
GuestImage BuildGuestImage(const ImageRequest& request);

// Several lines for a person: kernel, release, modules in order, builtin, initrd path and
// size, hash, and whether it came from the cache.
std::string DescribeImage(const GuestImage& image);

}  // namespace storbed

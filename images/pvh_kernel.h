// The guest kernel as QEMU boots it fastest: the bzImage's vmlinux, decompressed once on the
// host, entered through its PVH note. Under TCG the bzImage's own stub spends most of a
// boot decompressing the xz payload (measured: 16.1 s to a busybox marker from the bzImage,
// 8.7 s from its vmlinux, same kernel and argv, docs/boot.md). The vmlinux is the same
// kernel; only the decompressor stub and its KASLR are skipped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace storbed {

// The uncompressed vmlinux (ELF) inside a bzImage when it can be booted directly: an xz
// or zstd payload whose ELF has a PVH entry (Xen note PHYS32_ENTRY, CONFIG_PVH). nullopt
// with *why set otherwise (not a bzImage, another compression, no PVH note). Throws
// ImageError naming `path` when the payload is corrupt.
std::optional<std::string> PvhVmlinuxOf(std::string_view path, std::string_view bzimage,
                                        std::string* why);

// Whether an ELF image carries the PVH entry note; *why says what is missing.
bool HasPvhEntry(std::string_view elf, std::string* why);

// The kernel QEMU should boot for `kernel_path` (whose sha256 is `kernel_sha256`): a cached
// cache_dir/vmlinux-<sha256> made by PvhVmlinuxOf, or kernel_path itself when it cannot be
// booted that way (*note says why). Throws ImageError on read, write or corrupt data.
std::string BootableKernel(const std::string& kernel_path, const std::string& kernel_sha256,
                           const std::string& cache_dir, std::string* note);

}  // namespace storbed

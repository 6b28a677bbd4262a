// Kernel module files as the kernel's finit_module wants them: uncompressed ELF. Distros ship
// .ko, .ko.xz or .ko.zst; decompressing on the host keeps the guest side a plain load.
#pragma once

#include <string>
#include <string_view>

namespace storbed {

enum class ModuleCompression { None, Xz, Zstd, Gzip };

// By suffix: ".ko.xz" -> Xz, ".ko.zst" -> Zstd, ".ko.gz" -> Gzip, anything else -> None.
ModuleCompression CompressionFromPath(std::string_view path);

// "kernel/x/foo.ko.xz" -> "kernel/x/foo.ko"; paths without a compression suffix unchanged.
std::string StripCompressionSuffix(std::string_view path);

// The uncompressed bytes of a module file whose name is `path` (used for the format and in
// errors). Throws ImageError naming the path on corrupt or truncated data, and for gzip.
std::string DecompressModule(std::string_view path, std::string_view bytes);

// The decoders, exposed for tests. Same errors as DecompressModule.
std::string DecompressXz(std::string_view path, std::string_view bytes);
std::string DecompressZstd(std::string_view path, std::string_view bytes);

}  // namespace storbed

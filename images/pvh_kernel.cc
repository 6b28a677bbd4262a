#include "images/pvh_kernel.h"

#include <elf.h>
#include <lzma.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>

#include "images/file_io.h"
#include "images/image_cache.h"
#include "images/image_error.h"

namespace storbed {
namespace {

constexpr std::string_view kXzMagic("\xfd\x37\x7a\x58\x5a\x00", 6);  // "\xfd7zXZ\0"
constexpr std::string_view kZstdMagic("\x28\xb5\x2f\xfd", 4);
constexpr uint32_t kXenElfNotePhys32Entry = 18;  // xen/include/public/elfnote.h
constexpr size_t kMaxVmlinuxBytes = size_t{1} << 30;

template <class T>
T Read(std::string_view bytes, size_t at) {
  T v{};
  if (at + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

[[noreturn]] void Corrupt(std::string_view path, const std::string& reason) {
  throw ImageError(std::string(path),
                   "cannot decompress the kernel image " + std::string(path) + ": " + reason);
}

// One xz stream; the bzImage payload has the uncompressed size appended after it, which
// liblzma's single-stream decoder leaves alone.
std::string UnXz(std::string_view path, std::string_view in) {
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) Corrupt(path, "liblzma failed to start");
  std::string out;
  s.next_in = reinterpret_cast<const uint8_t*>(in.data());
  s.avail_in = in.size();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    const size_t done = out.size();
    if (done >= kMaxVmlinuxBytes) break;
    out.resize(done + (size_t{16} << 20));
    s.next_out = reinterpret_cast<uint8_t*>(out.data() + done);
    s.avail_out = out.size() - done;
    ret = lzma_code(&s, LZMA_FINISH);
    out.resize(out.size() - s.avail_out);
  }
  lzma_end(&s);
  if (ret != LZMA_STREAM_END) Corrupt(path, "corrupt or truncated xz payload");
  return out;
}

std::string UnZstd(std::string_view path, std::string_view in) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::string out;
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  size_t ret = 1;
  while (ret != 0 && out.size() < kMaxVmlinuxBytes) {
    const size_t done = out.size();
    out.resize(done + (size_t{16} << 20));
    ZSTD_outBuffer dst{out.data() + done, out.size() - done, 0};
    ret = ZSTD_decompressStream(dctx.get(), &dst, &src);
    out.resize(done + dst.pos);
    if (ZSTD_isError(ret)) Corrupt(path, std::string("zstd: ") + ZSTD_getErrorName(ret));
    if (ret != 0 && dst.pos == 0 && src.pos == src.size) break;  // input ended mid-frame
  }
  if (ret != 0) Corrupt(path, "truncated zstd payload");
  return out;
}

}  // namespace

bool HasPvhEntry(std::string_view elf, std::string* why) {
  if (elf.size() < sizeof(Elf64_Ehdr) || elf.substr(0, 4) != std::string_view(ELFMAG, 4) ||
      static_cast<unsigned char>(elf[EI_CLASS]) != ELFCLASS64) {
    *why = "the payload is not a 64-bit ELF";
    return false;
  }
  const auto eh = Read<Elf64_Ehdr>(elf, 0);
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const auto ph = Read<Elf64_Phdr>(elf, eh.e_phoff + i * eh.e_phentsize);
    if (ph.p_type != PT_NOTE || ph.p_offset + ph.p_filesz > elf.size()) continue;
    for (size_t at = ph.p_offset; at + sizeof(Elf64_Nhdr) <= ph.p_offset + ph.p_filesz;) {
      const auto nh = Read<Elf64_Nhdr>(elf, at);
      const size_t name_at = at + sizeof(Elf64_Nhdr);
      const size_t desc_at = name_at + ((nh.n_namesz + 3) & ~size_t{3});
      if (nh.n_type == kXenElfNotePhys32Entry && nh.n_namesz == 4 &&
          elf.substr(name_at, 4) == std::string_view("Xen\0", 4))
        return true;
      at = desc_at + ((nh.n_descsz + 3) & ~size_t{3});
    }
  }
  *why = "the kernel has no PVH entry note (CONFIG_PVH is off)";
  return false;
}

std::optional<std::string> PvhVmlinuxOf(std::string_view path, std::string_view bz,
                                        std::string* why) {
  // The x86 boot protocol's setup header (Documentation/arch/x86/boot.rst).
  if (Read<uint32_t>(bz, 0x202) != 0x53726448 /* "HdrS" */ || Read<uint16_t>(bz, 0x206) < 0x208) {
    *why = "not a bzImage of boot protocol 2.08 or later";
    return std::nullopt;
  }
  const unsigned setup_sects = static_cast<unsigned char>(bz[0x1f1]) ? bz[0x1f1] : 4;
  const size_t payload_at = (setup_sects + 1) * size_t{512} + Read<uint32_t>(bz, 0x248);
  const size_t payload_len = Read<uint32_t>(bz, 0x24c);
  if (payload_at + payload_len > bz.size()) {
    *why = "the setup header's payload lies past the end of the file";
    return std::nullopt;
  }
  const std::string_view payload = bz.substr(payload_at, payload_len);
  std::string elf;
  if (payload.starts_with(kXzMagic)) {
    elf = UnXz(path, payload);
  } else if (payload.starts_with(kZstdMagic)) {
    elf = UnZstd(path, payload);
  } else {
    *why = "the payload is neither xz nor zstd";
    return std::nullopt;
  }
  if (!HasPvhEntry(elf, why)) return std::nullopt;
  return elf;
}

std::string BootableKernel(const std::string& kernel_path, const std::string& kernel_sha256,
                           const std::string& cache_dir, std::string* note) {
  const std::string vmlinux = cache_dir + "/vmlinux-" + kernel_sha256;
  std::error_code ec;
  // Written under a temporary name and renamed: present means complete.
  if (std::filesystem::is_regular_file(vmlinux, ec)) {
    MarkCacheEntryUsed(vmlinux);
    *note = "its vmlinux, entered through the PVH note (cached " + vmlinux + ")";
    return vmlinux;
  }
  std::string why;
  const std::optional<std::string> elf =
      PvhVmlinuxOf(kernel_path, ReadFileBytes(kernel_path), &why);
  if (!elf) {
    *note = "the bzImage itself (" + why + ")";
    return kernel_path;
  }
  std::filesystem::create_directories(cache_dir, ec);
  WriteFileAtomic(vmlinux, *elf);
  *note = "its vmlinux, entered through the PVH note (made " + vmlinux + ")";
  return vmlinux;
}

}  // namespace storbed

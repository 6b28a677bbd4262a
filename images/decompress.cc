#include "images/decompress.h"

#include <lzma.h>
#include <zstd.h>

#include <cstdint>
#include <memory>

#include "images/image_error.h"

namespace storbed {
namespace {

// No kernel module comes near this; a larger output means a corrupt or hostile file, and
// stopping early keeps a decompression bomb from filling the host's memory.
constexpr uint64_t kMaxModuleBytes = uint64_t{1} << 30;

[[noreturn]] void Fail(std::string_view path, const std::string& reason) {
  throw ImageError(std::string(path),
                   "cannot decompress kernel module " + std::string(path) + ": " + reason);
}

std::string LzmaReason(lzma_ret ret) {
  switch (ret) {
    case LZMA_MEM_ERROR:
      return "out of memory";
    case LZMA_FORMAT_ERROR:
      return "not xz data";
    case LZMA_OPTIONS_ERROR:
      return "unsupported xz options";
    case LZMA_DATA_ERROR:
      return "corrupt xz data";
    case LZMA_BUF_ERROR:
      return "truncated xz data";
    default:
      return "liblzma error " + std::to_string(static_cast<int>(ret));
  }
}

struct LzmaStream {
  lzma_stream strm = LZMA_STREAM_INIT;
  ~LzmaStream() { lzma_end(&strm); }
};

struct DctxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

void CheckSize(std::string_view path, size_t size) {
  if (size > kMaxModuleBytes) Fail(path, "uncompressed size passes 1 GiB");
}

}  // namespace

ModuleCompression CompressionFromPath(std::string_view path) {
  if (path.ends_with(".xz")) return ModuleCompression::Xz;
  if (path.ends_with(".zst")) return ModuleCompression::Zstd;
  if (path.ends_with(".gz")) return ModuleCompression::Gzip;
  return ModuleCompression::None;
}

std::string StripCompressionSuffix(std::string_view path) {
  for (std::string_view suffix : {".xz", ".zst", ".gz"}) {
    if (path.ends_with(suffix)) {
      path.remove_suffix(suffix.size());
      break;
    }
  }
  return std::string(path);
}

std::string DecompressXz(std::string_view path, std::string_view bytes) {
  LzmaStream s;
  // LZMA_CONCATENATED: accept several .xz streams back to back, as xz(1) does.
  lzma_ret ret = lzma_stream_decoder(&s.strm, UINT64_MAX, LZMA_CONCATENATED);
  if (ret != LZMA_OK) Fail(path, LzmaReason(ret));
  s.strm.next_in = reinterpret_cast<const uint8_t*>(bytes.data());
  s.strm.avail_in = bytes.size();
  std::string out;
  uint8_t buf[1 << 16];
  do {
    s.strm.next_out = buf;
    s.strm.avail_out = sizeof buf;
    // LZMA_FINISH from the start: the whole input is already here.
    ret = lzma_code(&s.strm, LZMA_FINISH);
    out.append(reinterpret_cast<const char*>(buf), sizeof buf - s.strm.avail_out);
    CheckSize(path, out.size());
  } while (ret == LZMA_OK);
  if (ret != LZMA_STREAM_END) Fail(path, LzmaReason(ret));
  return out;
}

std::string DecompressZstd(std::string_view path, std::string_view bytes) {
  std::unique_ptr<ZSTD_DCtx, DctxFree> dctx(ZSTD_createDCtx());
  if (!dctx) Fail(path, "out of memory");
  // Streaming rather than ZSTD_decompress: kmod's compressor may leave the frame content size
  // out, and the stream API handles several frames in a row.
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  std::string out;
  std::string buf(ZSTD_DStreamOutSize(), '\0');
  size_t ret = 0;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    ret = ZSTD_decompressStream(dctx.get(), &o, &in);
    if (ZSTD_isError(ret)) Fail(path, ZSTD_getErrorName(ret));
    out.append(buf.data(), o.pos);
    CheckSize(path, out.size());
  }
  // Input consumed; the decoder may still hold output, and ret != 0 means the frame is unfinished.
  while (ret != 0) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    ret = ZSTD_decompressStream(dctx.get(), &o, &in);
    if (ZSTD_isError(ret)) Fail(path, ZSTD_getErrorName(ret));
    out.append(buf.data(), o.pos);
    CheckSize(path, out.size());
    if (o.pos == 0 && ret != 0) Fail(path, "truncated zstd data");
  }
  if (bytes.empty()) Fail(path, "empty file");
  return out;
}

std::string DecompressModule(std::string_view path, std::string_view bytes) {
  switch (CompressionFromPath(path)) {
    case ModuleCompression::None:
      return std::string(bytes);
    case ModuleCompression::Xz:
      return DecompressXz(path, bytes);
    case ModuleCompression::Zstd:
      return DecompressZstd(path, bytes);
    case ModuleCompression::Gzip:
      // zlib is not a build dependency; no distro storbed targets ships gzip modules.
      Fail(path, "gzip modules not supported (use a kernel with .ko, .ko.xz or .ko.zst)");
  }
  Fail(path, "unknown compression");
}

}  // namespace storbed

#include "images/decompress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <lzma.h>
#include <zstd.h>

#include <string>

#include "images/image_error.h"

namespace storbed {
namespace {

using ::testing::HasSubstr;

// Looks like a module: an ELF magic then varied, partly repetitive bytes.
std::string SampleModule(size_t size) {
  std::string data =
      "\x7f"
      "ELF";
  for (size_t i = 0; data.size() < size; ++i) data += static_cast<char>((i * 31) % 251);
  return data;
}

std::string CompressXz(const std::string& data) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  size_t pos = 0;
  // CRC32 check: what kmod's xz modules use.
  lzma_ret ret = lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, nullptr,
                                         reinterpret_cast<const uint8_t*>(data.data()), data.size(),
                                         reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
  EXPECT_EQ(ret, LZMA_OK);
  out.resize(pos);
  return out;
}

std::string CompressZstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// A frame without the content size in its header, as a streaming compressor writes it.
std::string CompressZstdStreaming(const std::string& data) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  std::string out;
  std::string buf(ZSTD_CStreamOutSize(), '\0');
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  size_t remaining;
  do {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    remaining = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_end);
    EXPECT_FALSE(ZSTD_isError(remaining));
    out.append(buf.data(), o.pos);
  } while (remaining != 0);
  ZSTD_freeCCtx(cctx);
  return out;
}

TEST(Decompress, SuffixesPickTheFormat) {
  EXPECT_EQ(CompressionFromPath("a/b.ko"), ModuleCompression::None);
  EXPECT_EQ(CompressionFromPath("a/b.ko.xz"), ModuleCompression::Xz);
  EXPECT_EQ(CompressionFromPath("a/b.ko.zst"), ModuleCompression::Zstd);
  EXPECT_EQ(CompressionFromPath("a/b.ko.gz"), ModuleCompression::Gzip);
  EXPECT_EQ(StripCompressionSuffix("a/b.ko.xz"), "a/b.ko");
  EXPECT_EQ(StripCompressionSuffix("a/b.ko.zst"), "a/b.ko");
  EXPECT_EQ(StripCompressionSuffix("a/b.ko"), "a/b.ko");
}

TEST(Decompress, PlainModuleIsReturnedAsIs) {
  std::string data = SampleModule(1000);
  EXPECT_EQ(DecompressModule("x.ko", data), data);
}

TEST(Decompress, XzRoundTrip) {
  for (size_t size : {4u, 1000u, 300000u}) {
    std::string data = SampleModule(size);
    EXPECT_EQ(DecompressModule("x.ko.xz", CompressXz(data)), data) << size;
  }
}

TEST(Decompress, ZstdRoundTrip) {
  for (size_t size : {4u, 1000u, 300000u}) {
    std::string data = SampleModule(size);
    EXPECT_EQ(DecompressModule("x.ko.zst", CompressZstd(data)), data) << size;
  }
}

TEST(Decompress, ZstdWithoutContentSize) {
  std::string data = SampleModule(500000);
  std::string packed = CompressZstdStreaming(data);
  ASSERT_EQ(ZSTD_getFrameContentSize(packed.data(), packed.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  EXPECT_EQ(DecompressModule("x.ko.zst", packed), data);
}

TEST(Decompress, ZstdTwoFrames) {
  std::string a = SampleModule(1000), b = "second frame";
  EXPECT_EQ(DecompressZstd("x.ko.zst", CompressZstd(a) + CompressZstd(b)), a + b);
}

TEST(Decompress, TruncatedXzNamesTheFile) {
  std::string packed = CompressXz(SampleModule(10000));
  try {
    DecompressModule("kernel/foo.ko.xz", packed.substr(0, packed.size() / 2));
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), "kernel/foo.ko.xz");
    EXPECT_THAT(e.what(), HasSubstr("kernel/foo.ko.xz"));
  }
}

TEST(Decompress, TruncatedZstdIsAnError) {
  std::string packed = CompressZstd(SampleModule(100000));
  EXPECT_THROW(DecompressModule("f.ko.zst", packed.substr(0, packed.size() - 10)), ImageError);
}

TEST(Decompress, GarbageIsAnError) {
  EXPECT_THROW(DecompressModule("f.ko.xz", "not xz at all"), ImageError);
  EXPECT_THROW(DecompressModule("f.ko.zst", "not zstd at all"), ImageError);
  EXPECT_THROW(DecompressModule("f.ko.zst", ""), ImageError);
}

TEST(Decompress, GzipIsReportedUnsupported) {
  try {
    DecompressModule("f.ko.gz", "\x1f\x8b");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("gzip modules not supported"));
  }
}

}  // namespace
}  // namespace storbed

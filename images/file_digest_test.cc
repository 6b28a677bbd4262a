#include "images/file_digest.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace storbed {
namespace {

// Test vectors from FIPS 180-4 examples / NIST CAVP SHA-256 short and long messages.
TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage) {
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, FourHundredFortyEightBitMessage) {
  EXPECT_EQ(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                      "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding edge cases: lengths around the 55/56/64 byte boundaries must give the same digest
// whether fed at once or one byte at a time.
TEST(Sha256, ChunkedUpdatesMatchOneShot) {
  for (size_t len : {0u, 1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 1000u}) {
    std::string data(len, '\0');
    for (size_t i = 0; i < len; ++i) data[i] = static_cast<char>(i * 7 + 3);
    Sha256 chunked;
    for (char c : data) chunked.Update(std::string_view(&c, 1));
    EXPECT_EQ(chunked.FinalHex(), Sha256Hex(data)) << "length " << len;
  }
}

TEST(Sha256, FinalReturnsRawDigest) {
  Sha256 sha;
  sha.Update("abc");
  Sha256::Digest d = sha.Final();
  EXPECT_EQ(d[0], 0xba);
  EXPECT_EQ(d[31], 0xad);
}

}  // namespace

namespace file_digest_test {

// The first field `sha256sum` prints for `path`; "" when it cannot be run.
std::string Sha256sumOf(const std::string& path) {
  FILE* p = popen(("sha256sum '" + path + "'").c_str(), "r");
  if (p == nullptr) return "";
  char hex[65] = {};
  const size_t n = std::fread(hex, 1, 64, p);
  pclose(p);
  return std::string(hex, n);
}

TEST(FileSha256, EqualsSha256sumOverSeveralReadPieces) {
  // 3 MiB and a few bytes: three full 1 MiB reads and a short one, bytes of every value.
  const std::string path = ::testing::TempDir() + "file_digest_test.bin";
  std::string data((3 << 20) + 17, '\0');
  uint32_t x = 12345;
  for (char& c : data) c = static_cast<char>((x = x * 1103515245 + 12345) >> 16);
  std::ofstream(path, std::ios::binary) << data;
  const std::string expected = Sha256sumOf(path);
  ASSERT_EQ(expected.size(), 64u) << "sha256sum did not run";
  EXPECT_EQ(FileSha256(path), expected);
  EXPECT_EQ(Sha256Hex(data), expected);
  std::filesystem::remove(path);
}

TEST(FileSha256, AMissingFileThrowsNamingIt) {
  const std::string path = ::testing::TempDir() + "file_digest_test-no-such-file";
  try {
    FileSha256(path);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot be read"), std::string::npos) << e.what();
  }
}

}  // namespace file_digest_test
}  // namespace storbed

#include "images/sha256.h"

#include <gtest/gtest.h>

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
}  // namespace storbed

// SHA-256 (FIPS 180-4), for content hashes of guest images. Written here because the host
// has no OpenSSL; speed is a few hundred MB/s, plenty for an agent and a kernel.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace storbed {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  // Feeds more bytes; may be called any number of times, with any split of the input.
  void Update(std::string_view data);
  // The digest of everything fed so far. The object must not be updated afterwards.
  Digest Final();
  // Final() as 64 lowercase hex digits.
  std::string FinalHex();

 private:
  void Block(const uint8_t* p);

  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// Lowercase hex of the SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// Lowercase hex of the SHA-256 of a whole file, read in 1 MiB pieces. Throws
// std::runtime_error naming the file when it cannot be read.
std::string FileSha256(const std::string& path);

}  // namespace storbed

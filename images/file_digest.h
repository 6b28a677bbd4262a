// SHA-256 content hashes of guest images, kernels and agents, by nettle (Debian's libnettle,
// GnuTLS's; it uses the CPU's SHA instructions where there are some): a 1 GiB image in 1.4 s
// here, 4.5 times as fast as the hand-written code it replaced (docs/bench-notes.md, "SHA-256").
#pragma once

#include <nettle/sha2.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace storbed {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, SHA256_DIGEST_SIZE>;

  Sha256();
  // Feeds more bytes; may be called any number of times, with any split of the input.
  void Update(std::string_view data);
  // The digest of everything fed so far. The object must not be updated afterwards.
  Digest Final();
  // Final() as 64 lowercase hex digits.
  std::string FinalHex();

 private:
  sha256_ctx ctx_;
};

// Lowercase hex of the SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// Lowercase hex of the SHA-256 of a whole file, read in 1 MiB pieces. Throws
// std::runtime_error naming the file when it cannot be read.
std::string FileSha256(const std::string& path);

}  // namespace storbed

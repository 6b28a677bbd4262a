#include "images/file_digest.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace storbed {

Sha256::Sha256() { sha256_init(&ctx_); }

void Sha256::Update(std::string_view data) {
  sha256_update(&ctx_, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
}

Sha256::Digest Sha256::Final() {
  Digest out;
  // nettle resets the context after the digest; Final's contract forbids reuse anyway.
  sha256_digest(&ctx_, out.size(), out.data());
  return out;
}

std::string Sha256::FinalHex() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * SHA256_DIGEST_SIZE);
  for (uint8_t byte : Final()) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

std::string Sha256Hex(std::string_view data) {
  Sha256 sha;
  sha.Update(data);
  return sha.FinalHex();
}

std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read (" + std::strerror(errno) + ")");
  Sha256 hash;
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), buffer.size());
    hash.Update(std::string_view(buffer.data(), in.gcount()));
  }
  if (in.bad()) throw std::runtime_error(path + ": read error while hashing");
  return hash.FinalHex();
}

}  // namespace storbed

#include "file_read.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "error.h"

namespace storbed {

// Through a FILE* rather than an ifstream so a failure keeps its errno for the message.
std::optional<std::string> TryReadFile(const std::string& path, int* error) {
  if (error != nullptr) *error = 0;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    if (error != nullptr) *error = errno;
    return std::nullopt;
  }
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  const int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err != 0) {
    if (error != nullptr) *error = err;
    return std::nullopt;
  }
  return data;
}

std::string ReadFileOrEmpty(const std::string& path) {
  return TryReadFile(path).value_or(std::string());
}

std::string ReadFileOrThrow(const std::string& path) {
  int err = 0;
  std::optional<std::string> bytes = TryReadFile(path, &err);
  if (!bytes) throw Error(ErrorKind::Host, "cannot read " + path + ": " + std::strerror(err));
  return *bytes;
}

}  // namespace storbed

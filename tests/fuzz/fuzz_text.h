// The fuzz input as the text a parser takes. Every target's contract is the same: the
// parser returns, or throws the error type its callers turn into a clear message. Any
// other exception escapes LLVMFuzzerTestOneInput, terminates, and libFuzzer saves the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace storbed::fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace storbed::fuzz

// Tests only: a zero-filled buffer aligned for O_DIRECT, to read a target back or hand a
// stamp function a block. The engines' own buffers are IoBuffers (io_buffer.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "io_buffer.h"

namespace storbed {

// Move-only, zero-filled, aligned to kIoAlignment. Throws std::bad_alloc.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t size) : size_(size) {
    void* p = nullptr;
    if (posix_memalign(&p, kIoAlignment, size ? size : 1) != 0) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
    std::memset(data_, 0, size);
  }
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace storbed

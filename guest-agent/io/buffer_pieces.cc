#include "buffer_pieces.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "block_tunables.h"
#include "sysfs_read.h"
#include "unique_fd.h"

namespace storbed {
namespace {

constexpr uint64_t kPresent = uint64_t(1) << 63;
constexpr uint64_t kFrameMask = (uint64_t(1) << 55) - 1;  // bits 0-54: the frame number

}  // namespace

uint32_t CountPieces(std::span<const uint64_t> frames, uint64_t page_size,
                     uint64_t max_piece_bytes) {
  if (frames.empty()) return 0;
  uint32_t pieces = 1;
  uint64_t piece_bytes = page_size;
  for (size_t i = 1; i < frames.size(); ++i) {
    if (frames[i] == frames[i - 1] + 1 && piece_bytes + page_size <= max_piece_bytes) {
      piece_bytes += page_size;
    } else {
      ++pieces;
      piece_bytes = page_size;
    }
  }
  return pieces;
}

std::optional<std::vector<uint64_t>> ReadFrames(int pagemap_fd, uintptr_t addr, size_t len,
                                                uint64_t page_size) {
  std::vector<uint64_t> entries(len / page_size);
  const size_t bytes = entries.size() * sizeof(uint64_t);
  if (pread(pagemap_fd, entries.data(), bytes, off_t(addr / page_size * sizeof(uint64_t))) !=
      ssize_t(bytes))
    return std::nullopt;
  for (uint64_t& e : entries) {
    if (!(e & kPresent) || (e & kFrameMask) == 0) return std::nullopt;
    e &= kFrameMask;
  }
  return entries;
}

std::optional<BufferPieces> MeasureBufferPieces(std::span<uint8_t* const> buffers, size_t size,
                                                uint32_t max_segments, uint64_t max_segment_size,
                                                const std::string& pagemap) {
  const UniqueFd fd(open(pagemap.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  const uint64_t page_size = uint64_t(sysconf(_SC_PAGESIZE));
  const size_t len = (size + page_size - 1) / page_size * page_size;
  std::vector<uint32_t> pieces;
  for (uint8_t* buf : buffers) {
    const auto frames = ReadFrames(fd.get(), reinterpret_cast<uintptr_t>(buf), len, page_size);
    if (!frames) return std::nullopt;
    pieces.push_back(CountPieces(*frames, page_size, max_segment_size));
  }
  if (pieces.empty()) return std::nullopt;
  BufferPieces out;
  out.max_segments = max_segments;
  out.buffers = uint32_t(pieces.size());
  out.over_max_segments = uint32_t(std::count_if(pieces.begin(), pieces.end(), [&](uint32_t p) {
    return max_segments > 0 && p > max_segments;
  }));
  std::sort(pieces.begin(), pieces.end());
  const size_t n = pieces.size();
  out.median_pieces = n % 2 ? pieces[n / 2] : (pieces[n / 2 - 1] + pieces[n / 2]) / 2.0;
  out.max_pieces = pieces.back();
  return out;
}

std::optional<BufferPieces> MeasureBufferPiecesOn(std::span<uint8_t* const> buffers, size_t size,
                                                  const std::string& device,
                                                  const std::string& sysfs_root,
                                                  const std::string& pagemap) {
  const auto queue = QueueDir(device, sysfs_root);
  if (!queue) return std::nullopt;
  const auto max_segments = ReadUint(*queue + "/max_segments");
  const auto max_segment_size = ReadUint(*queue + "/max_segment_size");
  if (!max_segments || !max_segment_size) return std::nullopt;
  return MeasureBufferPieces(buffers, size, uint32_t(*max_segments), *max_segment_size, pagemap);
}

std::string DescribeSplitBuffers(const BufferPieces& p, const std::string& device) {
  if (p.over_max_segments == 0) return "";
  char median[32];
  std::snprintf(median, sizeof median, "%g", p.median_pieces);
  return "IO buffers: " + std::to_string(p.over_max_segments) + " of " + std::to_string(p.buffers) +
         " lie in more physically contiguous pieces than " + device + "'s max_segments (" +
         std::to_string(p.max_segments) + "; median " + median + ", most " +
         std::to_string(p.max_pieces) +
         "), so each IO from them reaches the device as two or more requests. Where the "
         "kernel puts a buffer's pages changes from run to run, and with it this job's "
         "figures; huge_buffers: true keeps each buffer in one piece";
}

}  // namespace storbed

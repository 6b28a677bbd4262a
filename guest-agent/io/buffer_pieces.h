// Where an O_DIRECT job's IO buffers lie in physical memory, read from /proc/self/pagemap.
// The block layer builds a request from the buffer's pages, merging physically adjacent
// pages into one segment; a buffer in more pieces than the queue's max_segments goes out
// as two or more requests per IO. Which pages a 4 KiB-page buffer gets is the page
// allocator's luck of the run: a 1 MiB buffer here came out in 13 to 256 pieces, and of
// 64 such buffers 1 to 59 were over this disk's 254 from one process to the next, however
// they were populated; 1m depth-64 writes ran at 1191 IOPS with 52 over and at 2011 with
// 20 (docs/bench-notes.md, "Where the buffer's pages lie").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "result.h"

namespace storbed {

// The pieces of one buffer whose pages have these frame numbers, in virtual order: a new
// piece where a page does not follow the previous one physically, or where the piece
// would grow past max_piece_bytes (the queue's max_segment_size).
uint32_t CountPieces(std::span<const uint64_t> frames, uint64_t page_size,
                     uint64_t max_piece_bytes);

// The frame numbers of the pages of [addr, addr + len) (both page-aligned) from an open
// pagemap file; nullopt when it cannot be read, a page is not present, or the frame
// numbers are hidden (they read as 0 without CAP_SYS_ADMIN).
std::optional<std::vector<uint64_t>> ReadFrames(int pagemap_fd, uintptr_t addr, size_t len,
                                                uint64_t page_size);

// Pieces per buffer (each page-aligned, `size` bytes) against the queue's limits, from
// the pagemap file; nullopt when the frame numbers cannot be read.
std::optional<BufferPieces> MeasureBufferPieces(std::span<uint8_t* const> buffers, size_t size,
                                                uint32_t max_segments, uint64_t max_segment_size,
                                                const std::string& pagemap = "/proc/self/pagemap");

// The same against the limits in the queue directory of `device` (a disk or a partition,
// as in /proc/diskstats); nullopt also when those cannot be read.
std::optional<BufferPieces> MeasureBufferPiecesOn(
    std::span<uint8_t* const> buffers, size_t size, const std::string& device,
    const std::string& sysfs_root = "/sys", const std::string& pagemap = "/proc/self/pagemap");

// The warning a result carries when some buffers are over max_segments; "" when none are.
std::string DescribeSplitBuffers(const BufferPieces& pieces, const std::string& device);

}  // namespace storbed

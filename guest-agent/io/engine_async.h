// The loop every asynchronous engine shares: slot refill, submit timing, in-flight
// accounting, reaping, fsync drains and the phase's stats are written once here; an
// engine (engine_uring.cc, engine_libaio.cc) supplies only its ring or context, as an
// AsyncBackend.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "engine.h"
#include "io_buffer.h"

namespace storbed {

// One of iodepth IO slots: its buffer (job.bs bytes, not owned) and the IO it holds.
struct AsyncSlot {
  uint8_t* buf = nullptr;
  uint64_t offset = 0;
  uint64_t submit_ns = 0;  // CLOCK_MONOTONIC just before the submit call that took it
  // ... just before the first submit call of its refill: from here it counts in flight.
  uint64_t queued_ns = 0;
  bool write = false;
  StampedBody body;  // what buf holds from its last write's stamp
};

// A finished IO: its slot and the kernel's result (bytes transferred, or -errno).
struct AsyncCompletion {
  unsigned slot = 0;
  int64_t res = 0;
};

class AsyncBackend {
 public:
  // Destroyed before the slots: it must not return while the kernel may still write to
  // one of their buffers.
  virtual ~AsyncBackend() = default;
  // IOs the backend hands the kernel per submit call: the loop submits each group of
  // this many as soon as it is prepared.
  virtual size_t per_call() const = 0;
  // Prepares slot `s` (buffer, offset and direction set) to go in the next Submit.
  virtual void Prep(unsigned s, AsyncSlot& slot) = 0;
  // Submits the prepared slots `queued` (at most per_call(): one call, or more when the
  // kernel takes fewer), in order, counting its calls into `batches`. With
  // `wait_for_one` it may also wait for one completion in the same call. Sets each slot's
  // submit_ns just before the call that takes it. Throws JobError.
  virtual void Submit(std::span<const unsigned> queued, std::span<AsyncSlot> slots,
                      bool wait_for_one, BatchCounts& batches) = 0;
  // The first completion of a reap round: sleeps in the kernel (wait) or spins without
  // sleeping (poll) until one is there. Throws JobError.
  virtual AsyncCompletion ReapFirst(Reap reap) = 0;
  // Another completion of the same round that is already there; false when none is.
  virtual bool ReapMore(AsyncCompletion& c) = 0;
  // "io_uring" / "libaio": the start of "<name> read" and "<name> write" in errors.
  virtual const char* name() const = 0;
};

// Opens the backend for `depth` slots (ring or context of that many entries).
using AsyncBackendOpener = std::function<std::unique_ptr<AsyncBackend>(unsigned depth)>;

// Runs the IO phase with iodepth IOs in flight: after every reap round all free slots
// are refilled, each group of per_call() submitted before the next is prepared (a write's
// stamp takes time: the device gets the first group without waiting for the last).
// Throws JobError on a failed or short IO.
EngineStats RunAsyncEngine(const EngineJob& job, OffsetGenerator& offsets,
                           const AsyncBackendOpener& open);

}  // namespace storbed

#include "engine_async.h"

#include <string>
#include <vector>

namespace storbed {
namespace {

// What one phase of the loop keeps between rounds.
struct LoopState {
  FsyncPolicy fsync;
  InFlightIntegral in_flight_time;
  IoBudget budget;
  BatchCounts batches;
  uint64_t now;
  unsigned in_flight = 0;
};

// Counts one reap round: every completion the backend has, all timed at `now`.
void ReapRound(const EngineJob& job, AsyncBackend& backend, std::vector<AsyncSlot>& slots,
               std::vector<unsigned>& free_slots, LoopState& st, EngineStats& stats) {
  AsyncCompletion c = backend.ReapFirst(job.reap);
  // Every completion seen on this wake-up finished by now.
  st.now = MonotonicNs();
  unsigned round = 0;
  do {
    AsyncSlot& slot = slots[c.slot];
    ++round;
    // The call's name is built only for an error: this runs once per IO.
    auto syscall = [&] { return std::string(backend.name()) + (slot.write ? " write" : " read"); };
    if (c.res < 0) throw IoError(job.target, syscall(), slot.offset, int(-c.res));
    if (uint64_t(c.res) != job.bs)
      throw ShortIoError(job.target, syscall(), slot.offset, uint64_t(c.res), job.bs);
    CountCompletion(job, slot.write, slot.buf, slot.offset, st.now - slot.submit_ns, stats);
    free_slots.push_back(c.slot);
  } while (backend.ReapMore(c));
  st.in_flight -= round;
  st.in_flight_time.Set(st.now, st.in_flight);
  ++st.batches.reap_rounds;
  st.batches.reaped += round;
}

}  // namespace

EngineStats RunAsyncEngine(const EngineJob& job, OffsetGenerator& offsets,
                           const AsyncBackendOpener& open) {
  EngineStats stats;
  const unsigned depth = job.iodepth ? job.iodepth : 1;
  DirectionChooser direction(job);
  // Buffers and slots are declared before the backend: destroyed after it.
  IoBuffers own;
  const std::span<AlignedBuffer> bufs = TakeBuffers(job, own, depth);
  std::vector<AsyncSlot> slots(depth);
  std::vector<unsigned> free_slots;
  for (unsigned i = 0; i < depth; ++i) {
    slots[i].buf = bufs[i].data();
    free_slots.push_back(depth - 1 - i);
  }
  std::unique_ptr<AsyncBackend> backend = open(depth);

  LoopState st{.fsync = FsyncPolicy(job),
               .in_flight_time = {},
               .budget = IoBudget(job, offsets.blocks_per_pass(), MonotonicNs()),
               .batches = {},
               .now = MonotonicNs()};
  std::vector<unsigned> queued;
  while (true) {
    // Refill every free slot right after a reap; the backend submits them in its calls.
    queued.clear();
    while (!free_slots.empty() && !st.fsync.Due() && st.budget.MayIssue(st.now)) {
      const unsigned s = free_slots.back();
      free_slots.pop_back();
      AsyncSlot& slot = slots[s];
      slot.offset = offsets.Next();
      slot.write = direction.NextIsWrite();
      if (slot.write) {
        StampSectors(slot.buf, job.bs, slot.offset, job.seed);
        st.fsync.Wrote();
      }
      backend->Prep(s, slot);
      st.budget.Issued();
      queued.push_back(s);
    }
    if (!queued.empty()) {
      const uint64_t t = MonotonicNs();
      if (stats.start_ns == 0) st.budget.StartAt(stats.start_ns = t);
      st.in_flight += unsigned(queued.size());
      st.in_flight_time.Set(t, st.in_flight);
      if (st.in_flight > stats.max_in_flight) stats.max_in_flight = st.in_flight;
      backend->Submit(queued, slots, job.reap, st.batches);
    } else if (st.in_flight == 0) {
      // Drained: a due fsync runs with no write in flight, so it covers all of them.
      if (st.fsync.Due()) {
        st.now = st.fsync.Fsync(stats);
        continue;
      }
      break;
    }
    ReapRound(job, *backend, slots, free_slots, st, stats);
  }
  FinishAsyncStats(st.fsync, st.in_flight_time, st.batches, st.now, stats);
  return stats;
}

}  // namespace storbed

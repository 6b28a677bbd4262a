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
    CountCompletion(job, slot.write, slot.buf, slot.offset,
                    {slot.queued_ns, slot.submit_ns, st.now}, stats);
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
  const std::span<uint8_t* const> bufs = TakeBuffers(job, own, depth);
  std::vector<AsyncSlot> slots(depth);
  std::vector<unsigned> free_slots;
  for (unsigned i = 0; i < depth; ++i) {
    slots[i].buf = bufs[i];
    free_slots.push_back(depth - 1 - i);
  }
  std::unique_ptr<AsyncBackend> backend = open(depth);

  LoopState st{.fsync = FsyncPolicy(job),
               .in_flight_time = {},
               .budget = IoBudget(job, offsets.blocks_per_pass(), MonotonicNs()),
               .batches = {},
               .now = MonotonicNs()};
  const size_t per_call = backend->per_call();
  std::vector<unsigned> queued;
  queued.reserve(per_call);
  // The IOs of one refill count in flight from its first call, as fio counts an IO from
  // when it is queued: iodepth means the refill, not what the kernel has taken yet.
  uint64_t refill_start = 0;
  unsigned refill_ios = 0;
  auto submit = [&](bool wait_for_one) {
    if (refill_ios == 0) {
      refill_start = MonotonicNs();
      if (stats.start_ns == 0) st.budget.StartAt(stats.start_ns = refill_start);
    }
    refill_ios += unsigned(queued.size());
    for (const unsigned s : queued) slots[s].queued_ns = refill_start;
    backend->Submit(queued, slots, wait_for_one, st.batches);
    queued.clear();
  };
  while (true) {
    // Refill every free slot right after a reap. A full group goes to the kernel before the
    // next slot is prepared; the last group may wait for a completion in its call. A
    // group is sent only when another slot follows it, so the last is still queued here.
    refill_ios = 0;
    while (!free_slots.empty() && !st.fsync.Due() && st.budget.MayIssue(st.now)) {
      if (queued.size() == per_call) submit(false);
      const unsigned s = free_slots.back();
      free_slots.pop_back();
      AsyncSlot& slot = slots[s];
      slot.offset = offsets.Next();
      slot.write = direction.NextIsWrite();
      if (slot.write) {
        StampWrite(slot.buf, job.bs, slot.offset, job.seed, slot.body);
        st.fsync.Wrote();
      } else {
        slot.body.Forget();  // the read's data lands in buf
      }
      backend->Prep(s, slot);
      st.budget.Issued();
      queued.push_back(s);
    }
    if (!queued.empty()) {
      submit(job.reap == Reap::Wait);
      st.in_flight += refill_ios;
      st.in_flight_time.Set(refill_start, st.in_flight);
      if (st.in_flight > stats.max_in_flight) stats.max_in_flight = st.in_flight;
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

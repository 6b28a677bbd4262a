// IO engines: each keeps up to `iodepth` IOs in flight against an open target, takes
// offsets from an OffsetGenerator and records every completion's latency. One file per
// engine (engine_psync.cc, engine_uring.cc), one row each in MakeEngine's table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "histogram.h"
#include "job.h"
#include "job_runner.h"
#include "pattern.h"

namespace storbed {

// What an engine needs for one IO phase. The fd stays owned by the caller.
struct EngineJob {
  int fd = -1;
  std::string target;        // path, for error messages
  Direction rw = Direction::Read;
  uint64_t bs = 4096;
  uint32_t iodepth = 1;
  double runtime_s = 0;      // > 0: stop issuing after this long (passes repeat)
  uint64_t io_limit = 0;     // > 0: stop issuing after this many bytes
};

struct EngineStats {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  double runtime_s = 0;      // first submission to last completion
  Histogram latency;         // submission to completion, ns
  uint32_t max_in_flight = 0;
  std::vector<std::string> warnings;
};

// When to stop issuing: at runtime_s or io_limit when either is set (whichever comes
// first), otherwise after exactly one pass over the pattern's blocks. An io_limit that
// is not a multiple of bs is rounded up to whole IOs.
class IoBudget {
 public:
  IoBudget(const EngineJob& job, uint64_t blocks_per_pass, uint64_t start_ns);
  bool MayIssue(uint64_t now_ns) const;
  void Issued() { ++issued_; }

 private:
  uint64_t bs_;
  uint64_t io_limit_;
  uint64_t deadline_ns_;     // 0 = none
  uint64_t one_pass_;        // 0 = not the stop rule
  uint64_t issued_ = 0;
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  // Runs the IO phase. Throws JobError on a failed or short IO, naming target, offset,
  // syscall and errno text.
  virtual EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) = 0;
};

std::unique_ptr<IoEngine> MakePsyncEngine();
std::unique_ptr<IoEngine> MakeUringEngine();
// The engine `e` names. Throws std::invalid_argument for one this build lacks.
std::unique_ptr<IoEngine> MakeEngine(Engine e);

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNs();

// "<target>: <syscall> at offset <o> failed: <strerror(err)>"
JobError IoError(const std::string& target, const std::string& syscall, uint64_t offset, int err);
// "<target>: <syscall> at offset <o> transferred <done> of <bs> bytes"
JobError ShortIoError(const std::string& target, const std::string& syscall, uint64_t offset,
                      uint64_t done, uint64_t bs);

}  // namespace storbed

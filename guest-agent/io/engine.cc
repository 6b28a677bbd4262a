#include "engine.h"

#include <time.h>

#include <cstring>
#include <stdexcept>

namespace storbed {

IoBudget::IoBudget(const EngineJob& job, uint64_t blocks_per_pass, uint64_t start_ns)
    : bs_(job.bs),
      io_limit_(job.io_limit),
      deadline_ns_(job.runtime_s > 0 ? start_ns + uint64_t(job.runtime_s * 1e9) : 0),
      one_pass_(job.runtime_s > 0 || job.io_limit > 0 ? 0 : blocks_per_pass) {}

bool IoBudget::MayIssue(uint64_t now_ns) const {
  if (io_limit_ > 0 && issued_ * bs_ >= io_limit_) return false;
  if (deadline_ns_ > 0 && now_ns >= deadline_ns_) return false;
  if (one_pass_ > 0 && issued_ >= one_pass_) return false;
  return true;
}

namespace {

using Factory = std::unique_ptr<IoEngine> (*)();
struct EngineEntry {
  Engine engine;
  Factory make;
};
constexpr EngineEntry kEngines[] = {
    {Engine::Psync, MakePsyncEngine},
    {Engine::IoUring, MakeUringEngine},
};

}  // namespace

std::unique_ptr<IoEngine> MakeEngine(Engine e) {
  for (const auto& entry : kEngines)
    if (entry.engine == e) return entry.make();
  throw std::invalid_argument("engine " + ToString(e) + " is not built into this agent");
}

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

JobError IoError(const std::string& target, const std::string& syscall, uint64_t offset, int err) {
  return JobError(target + ": " + syscall + " at offset " + std::to_string(offset) +
                  " failed: " + std::strerror(err));
}

JobError ShortIoError(const std::string& target, const std::string& syscall, uint64_t offset,
                      uint64_t done, uint64_t bs) {
  return JobError(target + ": " + syscall + " at offset " + std::to_string(offset) +
                  " transferred " + std::to_string(done) + " of " + std::to_string(bs) +
                  " bytes (past the end of the target?)");
}

}  // namespace storbed

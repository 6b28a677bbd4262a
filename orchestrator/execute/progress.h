// How far a `storbed run` is: "[7/36] 003-nvme-rand-read IO 2.1/5 s | ETA 4m10s". On a
// terminal one status line that updates in place under the log (LogSink redraws it after
// every log line, a ticker every half second); elsewhere the same as a plain log line at
// each boot and run; with --quiet nothing. The ETA starts from the dry-run estimate and,
// once runs have finished, is the time they took scaled to the runs left.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "execute/line_log.h"

namespace storbed {

enum class ProgressMode { Terminal, Lines, Quiet };

// Terminal when `fd` is a terminal (and TERM is not "dumb"), else Lines.
ProgressMode ProgressModeFor(int fd);

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  // `done_runs` counts the runs recorded so far (ResultsDir); `estimate_s` is the dry
  // run's estimate of the whole plan.
  Progress(ProgressMode mode, LogSink& sink, size_t total_runs, double estimate_s,
           std::function<size_t()> done_runs);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Booting(const std::string& label);
  void RunStarted(const std::string& run_id, double runtime_s);

  // The status line as of `now` (no newline).
  std::string Line(Clock::time_point now) const;

 private:
  void Event();
  ProgressMode mode_;
  LogSink& sink_;
  size_t total_;
  double estimate_s_;
  std::function<size_t()> done_runs_;
  Clock::time_point start_;
  mutable std::mutex mu_;
  std::string current_, phase_;
  double runtime_s_ = 0;
  Clock::time_point phase_start_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread ticker_;
};

// "4m10s", "1h02m", "35s".
std::string FormatDuration(double seconds);

}  // namespace storbed

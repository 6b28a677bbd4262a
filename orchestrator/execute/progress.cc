#include "execute/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace storbed {

ProgressMode ProgressModeFor(int fd) {
  const char* term = std::getenv("TERM");
  if (isatty(fd) && !(term && std::strcmp(term, "dumb") == 0)) return ProgressMode::Terminal;
  return ProgressMode::Lines;
}

std::string FormatDuration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

Progress::Progress(ProgressMode mode, LogSink& sink, size_t total_runs, double estimate_s,
                   std::function<size_t()> done_runs)
    : mode_(mode),
      sink_(sink),
      total_(total_runs),
      estimate_s_(estimate_s),
      done_runs_(std::move(done_runs)),
      start_(Clock::now()),
      phase_start_(start_) {
  if (mode_ != ProgressMode::Terminal) return;
  sink_.SetStatus([this] { return Line(Clock::now()); });
  ticker_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
      lock.unlock();
      sink_.RedrawStatus();
      lock.lock();
    }
  });
}

Progress::~Progress() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (mode_ == ProgressMode::Terminal) sink_.SetStatus(nullptr);
}

void Progress::Booting(const std::string& label) {
  {
    std::lock_guard lock(mu_);
    current_ = label;
    phase_ = "booting";
    runtime_s_ = 0;
    phase_start_ = Clock::now();
  }
  Event();
}

void Progress::RunStarted(const std::string& run_id, double runtime_s) {
  {
    std::lock_guard lock(mu_);
    current_ = run_id;
    phase_ = "IO";
    runtime_s_ = runtime_s;
    phase_start_ = Clock::now();
  }
  Event();
}

void Progress::Event() {
  if (mode_ == ProgressMode::Lines) sink_.WriteLine(Line(Clock::now()) + "\n");
  else if (mode_ == ProgressMode::Terminal) sink_.RedrawStatus();
}

std::string Progress::Line(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  const size_t done = std::min(done_runs_(), total_);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // Before a run has finished only the estimate knows; after, the runs measured so far.
  const double eta = done == 0 ? estimate_s_ - elapsed
                               : elapsed * double(total_ - done) / double(done);
  std::string line = "[" + std::to_string(std::min(done + 1, total_)) + "/" +
                     std::to_string(total_) + "] " + current_;
  if (!phase_.empty()) {
    const double in_phase = std::chrono::duration<double>(now - phase_start_).count();
    char buf[64];
    if (phase_ == "IO" && runtime_s_ > 0)
      std::snprintf(buf, sizeof buf, " | IO %.1f/%.0f s", in_phase, runtime_s_);
    else
      std::snprintf(buf, sizeof buf, " | %s %.1f s", phase_.c_str(), in_phase);
    line += buf;
  }
  return line + " | ETA " + (done == total_ ? std::string("0s") : FormatDuration(eta));
}

}  // namespace storbed

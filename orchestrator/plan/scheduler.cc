#include "plan/scheduler.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace storbed {
namespace {

class Schedule {
 public:
  Schedule(const std::vector<WorkGroup>& groups, const std::vector<ScheduledHost>& hosts,
           UnitExecutor& executor)
      : groups_(groups), hosts_(hosts), status_(hosts.size(), HostStatus::Unused),
        executor_(executor) {}

  std::vector<HostStatus> Run() {
    size_t slots = 0;
    for (const auto& h : hosts_) slots += h.max_guests;
    std::vector<size_t> order(groups_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (slots == 1 && hosts_.size() == 1) {
      // One slot: nothing runs in parallel, so keep the plan order, local groups included.
      pending_.assign(order.begin(), order.end());
      Worker(0);
    } else {
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return groups_[a].work > groups_[b].work; });
      for (size_t g : order)
        if (!groups_[g].local) pending_.push_back(g);
      std::vector<std::thread> threads;
      try {
        for (size_t h = 0; h < hosts_.size(); ++h)
          for (uint32_t s = 0; s < hosts_[h].max_guests; ++s)
            threads.emplace_back([this, h] { Worker(h); });
      } catch (const std::system_error& e) {
        // No abort (std::terminate) with threads left unjoined: stop the slots that did
        // start, wait for their units, and report it as an error.
        std::lock_guard lock(mu_);
        if (!error_)
          error_ = std::make_exception_ptr(std::runtime_error(
              "cannot start guest slot " + std::to_string(threads.size() + 1) +
              " as a thread: " + e.what() + "; lower max_guests"));
        stop_ = true;
        cv_.notify_all();
      }
      for (auto& t : threads) t.join();
      if (!error_) {
        std::vector<size_t> local;
        for (size_t g = 0; g < groups_.size(); ++g)
          if (groups_[g].local) local.push_back(g);
        pending_.insert(pending_.end(), local.begin(), local.end());
      }
    }
    if (error_) std::rethrow_exception(error_);
    // Whatever is left had no host to go to (local groups wait here in the multi-slot case).
    for (size_t g : pending_) {
      for (size_t u : groups_[g].units) {
        if (groups_[g].local)
          executor_.Run(u, "");
        else
          executor_.Abandon(u, NoHostLeft());
      }
    }
    return status_;
  }

 private:
  // One slot of host `h`: takes groups until none is left, the host failed or the
  // schedule stopped. Waits while others are in flight, since a failing host puts its
  // group back.
  void Worker(size_t h) {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] {
        return stop_ || status_[h] == HostStatus::Failed || !pending_.empty() || in_flight_ == 0;
      });
      if (stop_ || status_[h] == HostStatus::Failed || pending_.empty()) break;
      const size_t g = pending_.front();
      pending_.pop_front();
      ++in_flight_;
      lock.unlock();
      std::string host_error;
      std::exception_ptr error;
      try {
        for (size_t u : groups_[g].units) executor_.Run(u, groups_[g].local ? "" : hosts_[h].name);
      } catch (const HostFailedError& e) {
        host_error = e.what();
        if (host_error.empty()) host_error = "host failed";
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      --in_flight_;
      if (error) {
        if (!error_) error_ = error;
        stop_ = true;
      } else if (!host_error.empty()) {
        status_[h] = HostStatus::Failed;
        failures_.push_back(hosts_[h].name + " failed: " + host_error);
        for (size_t u : groups_[g].units) executor_.Forget(u);
        executor_.HostFailed({hosts_[h].name, host_error, groups_[g].units});
        pending_.push_front(g);
      } else if (status_[h] == HostStatus::Unused && !groups_[g].local) {
        status_[h] = HostStatus::Ok;
      }
      cv_.notify_all();
    }
    cv_.notify_all();
  }

  std::string NoHostLeft() const {
    std::string out = "no host left to run on";
    for (size_t i = 0; i < failures_.size(); ++i) out += (i ? "; " : ": ") + failures_[i];
    return out;
  }

  const std::vector<WorkGroup>& groups_;
  const std::vector<ScheduledHost>& hosts_;
  std::vector<HostStatus> status_;
  UnitExecutor& executor_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<size_t> pending_;  // group indices
  size_t in_flight_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::string> failures_;  // "lab2 failed: <why>"
};

}  // namespace

std::string ToString(HostStatus s) {
  switch (s) {
    case HostStatus::Unused: return "unused";
    case HostStatus::Ok: return "ok";
    case HostStatus::Failed: return "failed";
  }
  return "?";
}

std::vector<HostStatus> RunSchedule(const std::vector<WorkGroup>& groups,
                                    const std::vector<ScheduledHost>& hosts,
                                    UnitExecutor& executor) {
  if (hosts.empty()) throw std::invalid_argument("RunSchedule: no hosts");
  return Schedule(groups, hosts, executor).Run();
}

}  // namespace storbed

#include "tracing/host_block_trace.h"

#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <queue>
#include <thread>

namespace storbed {

// A thread that runs the calls given to it, in order, until destroyed.
struct HostBlockTrace::Impl {
  std::mutex mu;
  std::condition_variable cv;
  std::queue<std::function<void()>> work;
  bool quit = false;
  std::unique_ptr<TracefsBlockTrace> trace;  // lives and dies on the thread
  std::thread thread{[this] { Loop(); }};

  ~Impl() {
    // The trace is removed on the thread that made it, in its namespace.
    Run([this] { trace.reset(); });
    {
      std::lock_guard lock(mu);
      quit = true;
    }
    cv.notify_one();
    thread.join();
  }

  void Loop() {
    for (;;) {
      std::function<void()> next;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [this] { return quit || !work.empty(); });
        if (work.empty()) return;
        next = std::move(work.front());
        work.pop();
      }
      next();
    }
  }

  // Runs f on the thread and waits for it; its exception comes back here.
  template <typename F>
  auto Run(F f) -> decltype(f()) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto result = task.get_future();
    {
      std::lock_guard lock(mu);
      work.push([&task] { task(); });
    }
    cv.notify_one();
    return result.get();
  }
};

HostBlockTrace::HostBlockTrace(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HostBlockTrace::~HostBlockTrace() = default;

std::unique_ptr<HostBlockTrace> HostBlockTrace::Start(const BlockTraceRequest& request) {
  auto impl = std::make_unique<Impl>();
  Impl* p = impl.get();
  BlockTraceRequest r = request;
  r.private_mount = true;
  p->Run([p, r] { p->trace = TracefsBlockTrace::Start(r); });
  return std::unique_ptr<HostBlockTrace>(new HostBlockTrace(std::move(impl)));
}

void HostBlockTrace::Begin() {
  Impl* p = impl_.get();
  p->Run([p] { p->trace->Begin(); });
}

BlockTraceCapture HostBlockTrace::Stop() {
  Impl* p = impl_.get();
  return p->Run([p] { return p->trace->Stop(); });
}

}  // namespace storbed

#include "libvirt/event_loop.h"

#include <libvirt/libvirt.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace storbed {
namespace {

void Nothing(int, void*) {}

std::mutex& LoopMutex() {
  static std::mutex mu;
  return mu;
}

std::weak_ptr<LibvirtEventLoop>& CurrentLoop() {
  static std::weak_ptr<LibvirtEventLoop> loop;
  return loop;
}

}  // namespace

struct LibvirtEventLoop::Runner {
  std::atomic<bool> stop{false};
  int wake_timer = -1;
  std::thread thread;
};

std::shared_ptr<LibvirtEventLoop> LibvirtEventLoop::Acquire() {
  std::lock_guard<std::mutex> lock(LoopMutex());
  if (auto loop = CurrentLoop().lock()) return loop;
  static const int registered = virEventRegisterDefaultImpl();
  if (registered < 0) throw std::runtime_error("libvirt: cannot register its default event loop");
  auto runner = std::make_unique<Runner>();
  // A disabled timer; Stop enables it with period 0 so the poll() returns at once.
  runner->wake_timer = virEventAddTimeout(-1, Nothing, nullptr, nullptr);
  if (runner->wake_timer < 0) throw std::runtime_error("libvirt: cannot add an event loop timer");
  Runner* r = runner.get();
  r->thread = std::thread([r] {
    while (!r->stop.load()) {
      if (virEventRunDefaultImpl() < 0) break;
    }
  });
  std::shared_ptr<LibvirtEventLoop> loop(new LibvirtEventLoop(std::move(runner)));
  CurrentLoop() = loop;
  return loop;
}

LibvirtEventLoop::LibvirtEventLoop(std::unique_ptr<Runner> runner) : runner_(std::move(runner)) {}

LibvirtEventLoop::~LibvirtEventLoop() {
  runner_->stop.store(true);
  virEventUpdateTimeout(runner_->wake_timer, 0);
  if (runner_->thread.joinable()) runner_->thread.join();
  virEventRemoveTimeout(runner_->wake_timer);
}

}  // namespace storbed

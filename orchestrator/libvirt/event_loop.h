// libvirt's default event loop on one thread. Non-blocking streams (the agent channel)
// and the remote driver's socket watches only fire while a thread runs the loop, and
// the loop must be registered before the first connection opens.
#pragma once

#include <memory>

namespace storbed {

// Held by every open connection; the thread runs while any holder is alive and is
// stopped and joined when the last one goes.
class LibvirtEventLoop {
 public:
  // Registers the default implementation (once per process) and starts the thread if it
  // is not running. Throws std::runtime_error if libvirt refuses.
  static std::shared_ptr<LibvirtEventLoop> Acquire();
  ~LibvirtEventLoop();
  LibvirtEventLoop(const LibvirtEventLoop&) = delete;
  LibvirtEventLoop& operator=(const LibvirtEventLoop&) = delete;

 private:
  struct Runner;
  explicit LibvirtEventLoop(std::unique_ptr<Runner> runner);
  std::unique_ptr<Runner> runner_;
};

}  // namespace storbed

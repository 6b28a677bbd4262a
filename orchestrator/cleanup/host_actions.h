// The side effects `storbed cleanup` has on this host, behind one interface so the
// scanners are unit-tested with a fake that records calls.
#pragma once

#include <cstdint>
#include <string>

namespace storbed {

class HostActions {
 public:
  virtual ~HostActions() = default;
  // SIGTERM, then SIGKILL if it lingers; returns once it is gone. Refuses (throws) when
  // the pid now belongs to a process that started at another tick.
  virtual void KillProcess(int pid, uint64_t start_ticks) = 0;
  // LOOP_CLR_FD on `device` ("/dev/loop3"), as `losetup -d` does.
  virtual void DetachLoop(const std::string& device) = 0;
  virtual void RemoveTree(const std::string& path) = 0;
  virtual void RemoveFile(const std::string& path) = 0;
};

// The real thing, against `proc_root` (normally "/proc") for the identity re-check.
// Every method throws std::runtime_error naming the object, the call and errno's text.
class RealHostActions : public HostActions {
 public:
  explicit RealHostActions(std::string proc_root = "/proc") : proc_root_(std::move(proc_root)) {}
  void KillProcess(int pid, uint64_t start_ticks) override;
  void DetachLoop(const std::string& device) override;
  void RemoveTree(const std::string& path) override;
  void RemoveFile(const std::string& path) override;

 private:
  std::string proc_root_;
};

}  // namespace storbed

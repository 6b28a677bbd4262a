// While the agent works on a request, a thread writes a `heartbeat` line every period
// (protocol.h), so the host can tell a long job from a hung guest or QEMU within seconds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace storbed::agent {

class HeartbeatWriter {
 public:
  // `write_line` gets each encoded heartbeat; it runs on the writer's thread, and nothing
  // else may write the channel until the writer is destroyed.
  HeartbeatWriter(std::function<void(const std::string&)> write_line,
                  std::chrono::milliseconds period);
  // Stops the thread and joins it, so the reply written next is never interleaved.
  ~HeartbeatWriter();
  HeartbeatWriter(const HeartbeatWriter&) = delete;
  HeartbeatWriter& operator=(const HeartbeatWriter&) = delete;

 private:
  void Beat(std::function<void(const std::string&)> write_line, std::chrono::milliseconds period);

  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace storbed::agent

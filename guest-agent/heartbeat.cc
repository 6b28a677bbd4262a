#include "heartbeat.h"

#include "protocol.h"

namespace storbed::agent {

HeartbeatWriter::HeartbeatWriter(std::function<void(const std::string&)> write_line,
                                 std::chrono::milliseconds period) {
  thread_ = std::thread([this, write_line = std::move(write_line), period] {
    Beat(write_line, period);
  });
}

HeartbeatWriter::~HeartbeatWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void HeartbeatWriter::Beat(std::function<void(const std::string&)> write_line,
                           std::chrono::milliseconds period) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, period, [this] { return stop_; })) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    try {
      write_line(EncodeMessage(Heartbeat{elapsed}));
    } catch (const std::exception&) {
      return;  // the channel broke: the reply's own write reports it
    }
  }
}

}  // namespace storbed::agent

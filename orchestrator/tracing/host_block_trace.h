// The host device's block tracepoints during one guest job, traced by storbed itself: a
// thread of its own sets up the tracefs instance (TracefsBlockTrace) in a mount namespace
// of that thread alone, so a tracefs storbed had to mount is nobody else's and goes when
// the thread or the process ends, SIGKILL included. Every call runs on that thread.
#pragma once

#include <memory>

#include "tracefs_session.h"

namespace storbed {

class HostBlockTrace {
 public:
  // Sets the trace of MAJOR:MINOR up (not yet recording). Throws BlockTraceSetupError.
  static std::unique_ptr<HostBlockTrace> Start(const BlockTraceRequest& request);
  ~HostBlockTrace();
  void Begin();
  BlockTraceCapture Stop();

 private:
  struct Impl;
  explicit HostBlockTrace(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace storbed

// The agent side of the protocol (protocol.h): reads request lines, answers each with
// exactly one reply line, and keeps serving after any error until `shutdown`.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "job_runner.h"
#include "line_channel.h"
#include "protocol.h"
#include "unique_fd.h"

namespace storbed::agent {

// Longest request line the agent accepts; a job spec is a few hundred bytes.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;

// How the agent reads its channel: requests up to kMaxLineBytes, a last request without
// '\n' still answered, and the fds left blocking (stdin may be a terminal shared with a
// shell). `zero_read` RetryLater for the guest's virtio-serial port.
LineChannelOptions AgentChannelOptions(ZeroRead zero_read = ZeroRead::EndOfStream);

// BlockStats::layer labels for the target's diskstats.
inline constexpr const char* kGuestLayer = kGuestBlockLayer;
inline constexpr const char* kHostLayer = kHostDeviceLayer;

// Everything the server does besides talking, so tests can put fakes in. An empty
// function means the real one.
struct ServerHooks {
  std::function<Prepared(const PrepareRequest&, const std::string& layer)> prepare;  // PrepareTarget
  // RunJob; a traced job's joined IOs go to `traced`.
  std::function<JobResult(const JobSpec&, const std::string& layer,
                          std::vector<AgentTracedIo>* traced)>
      run;
  std::function<std::vector<BlockDeviceInfo>()> list_devices;  // ListBlockDevices("/sys")
  std::function<std::string()> kernel_release;                 // uname
  std::function<OsRelease()> os_release;                       // ReadOsRelease("/")
  std::function<std::vector<QueueRule>()> queue_rules;         // FindQueueRules("/")
  std::function<std::string()> tuned_profile;                  // ReadTunedProfile("/")
  std::function<uint64_t()> monotonic_ns;                      // CLOCK_MONOTONIC
  std::function<double()> uptime_s;                            // CLOCK_BOOTTIME
};

struct ServerOptions {
  std::string layer = kHostLayer;           // passed to every RunJob and PrepareTarget
  std::vector<std::string> modules_loaded;  // reported in hello_reply
  // As a guest's /init: the boot so far, reported in hello_reply with uptime_s set at
  // each hello. nullopt elsewhere (bare metal, --serve-stdio).
  std::optional<GuestBoot> boot;
  // A heartbeat line goes out this often while a request is being answered.
  std::chrono::milliseconds heartbeat_period = kHeartbeatPeriod;
  // On a host (--serve-stdio): the default prepare and run first judge their target
  // (target_safety.h; a refusal is the request's error reply), and a job's queue settings
  // are journalled by `tunables` until they are back. Unset in a guest: its disks are ours.
  std::function<void(const JobSpec&)> check_target;
  // And then hold it until the job ends (HoldStandaloneTarget: no mount mid-job).
  std::function<UniqueFd(const JobSpec&)> hold_target;
  TunablesRecorder* tunables = nullptr;
  ServerHooks hooks;
};

enum class ServeEnd {
  Shutdown,     // the host sent `shutdown` and got its ack
  EndOfStream,  // the channel ended without a shutdown
};

class Server {
 public:
  explicit Server(ServerOptions options);

  // Answers requests until shutdown or end of stream. Throws ChannelError only when the
  // channel itself fails; request failures become error replies.
  ServeEnd Serve(LineChannel& channel);

  // The reply to one request line. Never throws for a bad line or a failed job.
  Message Answer(const std::string& line);

 private:
  Message Dispatch(const Message& request, const std::string& line);
  HelloReply Hello();

  ServerOptions options_;
  std::vector<AgentTracedIo> last_trace_;  // the last traced job's IOs, for trace_fetch
};

}  // namespace storbed::agent

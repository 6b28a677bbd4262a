// The agent protocol: JSON lines over the virtio-serial port (or a pipe for the
// bare-metal agent). The host sends requests, the agent answers each with exactly one
// reply, so neither side ever writes unasked (a virtio port drops or blocks writes
// while the host end is closed). While it works on a request the agent also writes a
// `heartbeat` every kHeartbeatPeriod: the host is waiting then, and the heartbeats let it
// tell a long job from a hung guest or QEMU within seconds.
//
//   host -> agent: hello, prepare, run, trace_fetch, shutdown
//   agent -> host: hello_reply, prepared, result, trace_chunk, error, shutdown_ack; heartbeat
//
// Every message carries "type" and "v" (kProtocolVersion). An unknown type, a wrong
// version or a malformed line is answered with `error`, never a crash.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "error.h"
#include "job.h"
#include "result.h"

namespace storbed {

// 2: the agent sends heartbeats while it works on a request.
// 3: hello_reply carries `boot`, the agent's boot breakdown when it runs as /init.
// 4: trace_fetch / trace_chunk: a traced job's IOs, in chunks after its result.
inline constexpr int kProtocolVersion = 4;
// How often the agent says it is still working on a request.
inline constexpr std::chrono::milliseconds kHeartbeatPeriod{2000};
// The virtio-serial port name the agent looks for under /sys/class/virtio-ports/*/name.
inline constexpr const char* kAgentPortName = "org.storbed.agent.0";

struct BlockDeviceInfo {
  std::string name;             // kernel name, e.g. "vda", "nvme0n1"
  std::string path;             // "/dev/vda"
  uint64_t size_bytes = 0;
  std::string serial;           // virtio-blk serial or NVMe serial, used to map disks
  std::string model;
  uint32_t logical_block_size = 0;
  uint32_t physical_block_size = 0;
  bool rotational = false;
  uint32_t read_ahead_kb = 0;
  uint32_t nr_requests = 0;
  uint32_t max_sectors_kb = 0;
  std::string scheduler;        // the active one, e.g. "none", "mq-deadline"
  uint32_t nr_hw_queues = 0;    // entries under /sys/block/X/mq
};

// How the guest's boot went, as the agent saw it running as /init. Seconds on the guest's
// CLOCK_BOOTTIME, which starts with the kernel's own clock: after the firmware and the
// kernel's decompression, which only the host can time.
struct GuestBoot {
  double init_start_s = 0;  // when the agent started as /init (the kernel's boot before it)
  double modules_s = 0;     // loading the image's module list
  double devices_s = 0;     // waiting for the agent's virtio-serial port to appear
  double uptime_s = 0;      // when this hello reply was made
};

struct HelloRequest {};
// os-release(5) of the guest's root: set for a foreign image, "" in a storbed initramfs.
struct OsRelease {
  std::string pretty_name;  // PRETTY_NAME
  std::string version_id;   // VERSION_ID
  bool operator==(const OsRelease&) const = default;
};
// A line of the guest's own configuration that sets a disk's queue tunables (scheduler,
// read-ahead, nr_requests): a udev rule assigning the attribute, or `blockdev --setra`.
struct QueueRule {
  std::string file;  // "/etc/udev/rules.d/60-scheduler.rules"
  uint32_t line = 0;
  std::string text;  // the rule, as written
  bool operator==(const QueueRule&) const = default;
};
struct HelloReply {
  std::string agent_version;
  std::string kernel_release;
  std::vector<BlockDeviceInfo> devices;
  uint64_t monotonic_ns = 0;    // agent's CLOCK_MONOTONIC when it answered
  std::vector<std::string> modules_loaded;
  std::optional<GuestBoot> boot;  // only from the agent as /init of a guest
  OsRelease os_release;
  // A foreign guest's own tuners, read before any job's tunables are applied: udev rules
  // setting queue attributes, and tuned's active profile ("" without tuned).
  std::vector<QueueRule> queue_rules;
  std::string tuned_profile;
};
struct PrepareRequest {
  std::string target;
  CacheState cache = CacheState::Cold;
};
struct Prepared {
  std::string target;
  double prepare_s = 0;
  std::string steps;
};
struct RunRequest {
  JobSpec job;
};
struct ResultReply {
  JobResult result;
};
struct ErrorReply {
  std::string message;
  std::string request_type;     // what was being answered, "" when unknown
  std::string raw;              // the offending line, when the line itself was bad
};
struct ShutdownRequest {};
struct ShutdownAck {};
// Not a reply: the agent is still working on the request it was given.
struct Heartbeat {
  double elapsed_s = 0;  // since the request arrived
};
// The IOs of the last traced job, from the from-th on (io_trace.h).
struct TraceFetchRequest {
  size_t from = 0;
};
// Up to kTraceChunkIos of them: TracedIoChunk's JSON.
struct TraceChunkReply {
  nlohmann::json chunk;
};

using Message = std::variant<HelloRequest, HelloReply, PrepareRequest, Prepared, RunRequest,
                             ResultReply, ErrorReply, ShutdownRequest, ShutdownAck, Heartbeat,
                             TraceFetchRequest, TraceChunkReply>;

// A line that is not a valid message. `raw` is the line as received.
class ProtocolError : public Error {
 public:
  ProtocolError(const std::string& what, std::string raw)
      : Error(ErrorKind::Internal, what), raw_(std::move(raw)) {}
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
};

// One JSON document on one line, without the trailing newline.
std::string EncodeMessage(const Message& m);
// Throws ProtocolError on bad JSON, a missing/unknown type, a version mismatch or bad fields.
Message DecodeMessage(const std::string& line);
// The "type" string of a message.
std::string MessageType(const Message& m);

void to_json(nlohmann::json& j, const GuestBoot& b);
void from_json(const nlohmann::json& j, GuestBoot& b);
void to_json(nlohmann::json& j, const BlockDeviceInfo& d);
void from_json(const nlohmann::json& j, BlockDeviceInfo& d);

}  // namespace storbed

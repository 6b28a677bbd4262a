#include "server.h"

#include <utility>

#include "bdev_holder.h"
#include "device_info.h"
#include "fs_mount.h"
#include "heartbeat.h"
#include "os_release.h"
#include "queue_rules.h"
#include "system_info.h"
#include "version.h"

namespace storbed::agent {
namespace {

void FillDefaultHooks(ServerOptions& options) {
  ServerHooks& hooks = options.hooks;
  const auto check = options.check_target;
  // The server lives across jobs, so it holds their block devices open: their page cache
  // then survives from one request to the next, as `cache: keep` promises.
  if (!hooks.prepare)
    hooks.prepare = [check](const PrepareRequest& request, const std::string& layer) {
      if (check) {
        JobSpec reads;  // dropping or filling its cache reads the target, and may flush it
        reads.name = "prepare";
        reads.target = request.target;
        check(reads);
      }
      HoldBlockDeviceOpen(request.target);
      return PrepareTarget(request, layer);
    };
  if (!hooks.run)
    hooks.run = [check, hold = options.hold_target, tunables = options.tunables](
                    const JobSpec& job, const std::string& layer,
                    std::vector<AgentTracedIo>* traced) {
      if (check) check(job);
      const UniqueFd held = hold ? hold(job) : UniqueFd();  // nobody mounts it mid-job
      const JobTracing tracing{.start = {}, .private_mount = true, .ios = traced};
      if (!job.filesystem.empty())
        return RunJob(MountFilesystemTarget(job), layer, tracing, tunables);
      HoldBlockDeviceOpen(job.target);
      return RunJob(job, layer, tracing, tunables);
    };
  if (!hooks.list_devices) hooks.list_devices = [] { return ListBlockDevices("/sys"); };
  if (!hooks.kernel_release) hooks.kernel_release = KernelRelease;
  if (!hooks.os_release) hooks.os_release = [] { return ReadOsRelease("/"); };
  if (!hooks.queue_rules) hooks.queue_rules = [] { return FindQueueRules("/"); };
  if (!hooks.tuned_profile) hooks.tuned_profile = [] { return ReadTunedProfile("/"); };
  if (!hooks.monotonic_ns) hooks.monotonic_ns = MonotonicNs;
  if (!hooks.uptime_s) hooks.uptime_s = UptimeSeconds;
}

ErrorReply TooLongReply(const std::string& excerpt) {
  return ErrorReply{"request line is longer than " + std::to_string(kMaxLineBytes) +
                        " bytes and was discarded (raw holds its first " +
                        std::to_string(excerpt.size()) + " bytes)",
                    "", excerpt};
}

}  // namespace

LineChannelOptions AgentChannelOptions(ZeroRead zero_read) {
  LineChannelOptions options;
  options.max_line_bytes = kMaxLineBytes;
  options.zero_read = zero_read;
  options.keep_unterminated_last_line = true;
  options.nonblocking = false;
  return options;
}

Server::Server(ServerOptions options) : options_(std::move(options)) { FillDefaultHooks(options_); }

ServeEnd Server::Serve(LineChannel& channel) {
  for (;;) {
    std::string line;
    // No deadline: kTimeout cannot come back.
    const LineChannel::ReadStatus status = channel.ReadLine(&line);
    if (status == LineChannel::ReadStatus::kEof) return ServeEnd::EndOfStream;
    if (status == LineChannel::ReadStatus::kTooLong) {
      channel.WriteLine(EncodeMessage(TooLongReply(line)));
      continue;
    }
    // Blank lines carry no request, so they get no reply (a host may send one to
    // flush a half-written line after reconnecting).
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Message reply;
    {
      HeartbeatWriter heartbeat([&channel](const std::string& beat) { channel.WriteLine(beat); },
                                options_.heartbeat_period);
      reply = Answer(line);
    }
    channel.WriteLine(EncodeMessage(reply));
    if (std::holds_alternative<ShutdownAck>(reply)) return ServeEnd::Shutdown;
  }
}

Message Server::Answer(const std::string& line) {
  Message request;
  try {
    request = DecodeMessage(line);
  } catch (const ProtocolError& e) {
    return ErrorReply{e.what(), "", e.raw()};
  }
  const std::string type = MessageType(request);
  try {
    return Dispatch(request, line);
  } catch (const std::exception& e) {
    return ErrorReply{e.what(), type, ""};
  } catch (...) {
    return ErrorReply{"unknown exception while handling the request", type, ""};
  }
}

Message Server::Dispatch(const Message& request, const std::string& line) {
  if (std::holds_alternative<HelloRequest>(request)) return Hello();
  if (const auto* prepare = std::get_if<PrepareRequest>(&request))
    return options_.hooks.prepare(*prepare, options_.layer);
  if (const auto* run = std::get_if<RunRequest>(&request)) {
    last_trace_.clear();
    return ResultReply{options_.hooks.run(run->job, options_.layer, &last_trace_)};
  }
  if (const auto* fetch = std::get_if<TraceFetchRequest>(&request)) {
    if (fetch->from > last_trace_.size())
      throw std::invalid_argument("trace_fetch from " + std::to_string(fetch->from) +
                                  ": the last traced job has " +
                                  std::to_string(last_trace_.size()) + " IOs");
    return TraceChunkReply{TracedIoChunk(last_trace_, fetch->from, kTraceChunkIos)};
  }
  if (std::holds_alternative<ShutdownRequest>(request)) return ShutdownAck{};
  const std::string type = MessageType(request);
  return ErrorReply{"'" + type + "' is a message the agent sends, not a request it answers", type,
                    line};
}

HelloReply Server::Hello() {
  HelloReply reply;
  reply.agent_version = kStorbedVersion;
  reply.kernel_release = options_.hooks.kernel_release();
  reply.devices = options_.hooks.list_devices();
  reply.modules_loaded = options_.modules_loaded;
  reply.boot = options_.boot;
  if (reply.boot) reply.boot->uptime_s = options_.hooks.uptime_s();
  reply.os_release = options_.hooks.os_release();
  reply.queue_rules = options_.hooks.queue_rules();
  reply.tuned_profile = options_.hooks.tuned_profile();
  // Taken last so it is as close as possible to the moment the reply is written.
  reply.monotonic_ns = options_.hooks.monotonic_ns();
  return reply;
}

}  // namespace storbed::agent

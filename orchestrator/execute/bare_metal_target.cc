#include "execute/bare_metal_target.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include "analysis/durability.h"
#include "analysis/ladder_builder.h"
#include "backend/child_process.h"
#include "backend/interrupt.h"
#include "execute/host_mount.h"
#include "execute/loop_device.h"
#include "execute/progress.h"
#include "execute/round_gate.h"
#include "execute/temp_dir.h"
#include "execute/trace_record.h"
#include "file_read.h"
#include "proc_stat.h"
#include "protocol.h"
#include "sampling/job_sampler.h"
#include "strict_json.h"

namespace storbed {
namespace {

using Clock = std::chrono::steady_clock;

// Where the agent's log is kept, in the out dir (RunBareMetalTarget copies it there).
std::string KeptLogName(const std::string& log_name) { return "bare-metal/" + log_name; }

bool IsHeartbeatLine(const std::string& line) {
  if (line.empty() || line[0] != '{') return false;
  try {
    return std::holds_alternative<Heartbeat>(DecodeMessage(line));
  } catch (const std::exception&) {
    return false;
  }
}

int HeartbeatLines(const std::string& log) {
  std::istringstream lines(log);
  int beats = 0;
  for (std::string line; std::getline(lines, line);) beats += IsHeartbeatLine(line) ? 1 : 0;
  return beats;
}

// The agent's own last sentence: its last line that is not a heartbeat ("" for none).
std::string LastLineNotAHeartbeat(const std::string& log) {
  std::istringstream lines(log);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (!IsHeartbeatLine(line)) last = line;
  return last;
}

// ", stopped: state T" from /proc/<pid>/stat: says whether a signal stopped it or it is
// stuck in the kernel (D); "" when unreadable.
std::string AgentStateText(int pid) {
  const auto stat = ParseProcStat(ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat"));
  if (!stat) return "";
  switch (stat->state) {
    case 'T':
    case 't':
      return ", stopped: state " + std::string(1, stat->state);
    case 'D':
      return ", stuck in the kernel: state D, uninterruptible IO";
    default:
      return ", state " + std::string(1, stat->state);
  }
}

}  // namespace

std::string AgentLogName(const std::string& run_id) { return "agent-" + run_id + ".log"; }

JobResult RunStandaloneAgent(const std::string& agent_path, const JobSpec& job,
                             const std::string& work_dir, const std::string& log_name,
                             std::chrono::milliseconds timeout, const std::string& trace_out,
                             std::chrono::milliseconds silence_limit) {
  const std::string job_file = work_dir + "/job-" + job.name + ".json";
  const std::string out_file = work_dir + "/" + log_name;
  std::ofstream(job_file) << nlohmann::json(job).dump(2) << "\n";
  std::vector<std::string> argv = {agent_path, "--standalone", job_file, "--heartbeat"};
  // The agent refuses to write to a block device unless told: storbed's input checks
  // (execute/input_checks.h) have judged this one already, and the agent still refuses
  // one the host is using.
  if (job.rw != Direction::Read) argv.push_back("--allow-writes");
  // The journal of the queue settings a job changes goes beside the run's work dirs, where
  // `storbed cleanup --work-dir` looks when a SIGKILL left it.
  argv.insert(argv.end(),
              {"--journal-dir", std::filesystem::path(work_dir).parent_path().string()});
  if (!trace_out.empty()) argv.insert(argv.end(), {"--trace-out", trace_out});
  ChildProcess agent = ChildProcess::Start(argv, out_file);
  const auto deadline = Clock::now() + timeout;
  // The watchdog: the agent's heartbeats (protocol.h) land in its log, so a log that has
  // not grown for the silence limit is an agent that has stopped (SIGSTOP, a debugger) or
  // hangs. The guest agent's link (backend/agent_link.h) applies the same limit.
  std::uintmax_t heard_size = 0;
  auto last_heard = Clock::now();
  while (agent.Running()) {
    ThrowIfInterrupted();  // ~ChildProcess kills the agent on the way out
    const auto now = Clock::now();
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(out_file, ec);
    if (!ec && size != heard_size) {
      heard_size = size;
      last_heard = now;
    }
    if (now - last_heard > silence_limit) {
      const int pid = agent.Pid();
      const std::string state = AgentStateText(pid);
      const int beats = HeartbeatLines(ReadFileOrEmpty(out_file));
      // Terminate continues a stopped agent, so it acts on the SIGTERM (and puts back what
      // it changed) before the SIGKILL; either way it is reaped here, not left behind.
      agent.Terminate(std::chrono::seconds(2));
      throw AgentSilentError("run", silence_limit, beats, "the bare-metal agent",
                             "running job " + job.name,
                             "it hangs (pid " + std::to_string(pid) + state +
                                 "); it was killed (log: " + KeptLogName(log_name) + ")");
    }
    if (now > deadline)
      throw Error(ErrorKind::Host, "the bare-metal agent did not finish within " +
                                       std::to_string(timeout.count() / 1000) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The log holds the agent's stdout (the result, one JSON line) and its stderr.
  std::string out = ReadFileOrEmpty(out_file);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  // The agent's own sentence is its last line. On a full disk that is a cut result line
  // of megabytes instead: the log the message names keeps it whole.
  if (!agent.ExitedSuccessfully()) {
    std::string last = LastLineNotAHeartbeat(out);
    if (last.size() > 300) last = last.substr(0, 300) + " ...";
    throw std::runtime_error("the bare-metal agent " + agent.ExitDescription() + " (log: " +
                             KeptLogName(log_name) + ")" + (last.empty() ? "" : ": " + last));
  }
  const size_t start = out.rfind("\n{") == std::string::npos ? 0 : out.rfind("\n{") + 1;
  try {
    return ParseJson(out.substr(start)).get<JobResult>();
  } catch (const std::exception& e) {
    throw std::runtime_error("the bare-metal agent printed no result (log: " +
                             KeptLogName(log_name) + "): " + WithoutJsonTag(e.what()));
  }
}

namespace {

// One run of the standalone agent on the loop device (record.job.target is set), with
// the host samplers beside it; the record goes to the results, failed or not.
void RunOnHost(RunContext& ctx, RunRecord record, const PlannedRun& run,
               const std::string& work_dir) {
  ctx.log << "  " << run.run_id << " on " << record.device << "...\n";
  const auto start = Clock::now();
  try {
    // No QEMU here: of the host samplers only the CPU one has something to watch. The
    // standalone agent's CLOCK_MONOTONIC is the host's, so its IO window needs no offset.
    JobSamplerOptions sampling;
    sampling.period = std::chrono::milliseconds(ctx.machine.sample_period_ms);
    JobSampler sampler(SamplerSource{}, sampling);
    sampler.Start();
    const std::string trace_out =
        record.job.trace ? work_dir + "/trace-" + record.job.name + ".jsonl" : "";
    record.result =
        RunStandaloneAgent(ctx.options.agent_path, record.job, work_dir,
                           AgentLogName(record.run_id), JobReplyTimeout(record.job), trace_out);
    sampler.Stop();
    const HostLayers host =
        sampler.Summarize(record.result->io_start_ns, record.result->io_end_ns);
    record.host.update(host.figures);
    record.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (run.warmup) record.status = RunStatus::Warmup;
    record.ladder = BareMetalLadder(*record.result);
    record.durability = CheckDurability(record.job, *record.result, std::nullopt,
                                        BareMetalHostFlushes(*record.result));
    if (record.result->io_trace) {
      try {
        StoreBareMetalTrace(ctx, record, ReadAgentTraceFile(trace_out));
      } catch (const std::exception& e) {
        record.host["warnings"].push_back(std::string("trace: ") + e.what());
        ctx.log << "    warning: trace: " << e.what() << "\n";
      }
      std::error_code ec;
      std::filesystem::remove(trace_out, ec);
    }
    StoreFinishedRecord(ctx, record, host.timelines);
    ctx.log << "    " << record.result->mib_s << " MiB/s, " << record.result->iops << " IOPS\n";
  } catch (const InterruptedError&) {
    RecordFailure(ctx, record, RunStatus::Failed, InterruptedRunText());
    throw;
  } catch (const std::exception& e) {
    RecordFailure(ctx, record, RunStatus::Failed, e.what());
  }
}

}  // namespace

void RunBareMetalTarget(RunContext& ctx, const std::vector<PlannedRun>& runs) {
  // disk.passthrough: the jobs run on the namespace itself, the device the guest gets
  // next, not on a loop device over it.
  const bool on_device = !ctx.disk.passthrough.empty();
  ctx.log << "bare metal: " << (on_device ? "NVMe namespace " : "loop device over ")
          << ctx.backing.path << "\n";
  auto base_record = [&](const PlannedRun& run) {
    RunRecord r;
    r.run_id = run.run_id;
    r.target = ToString(TargetKind::BareMetal);
    r.accel = "host";
    r.host_name = kLocalHost;  // bare metal is this machine's disk, whatever the hosts
    r.backend = ToString(HostBackend::None);
    r.job = run.job;
    r.params = run.params;
    return r;
  };
  std::optional<LoopDevice> loop;
  try {
    // Direct IO on the loop, so host page cache behaviour is the job's, not the loop's.
    if (!on_device) loop = LoopDevice::Attach(ctx.backing.path, /*direct_io=*/true);
  } catch (const std::exception& e) {
    for (const auto& run : runs) RecordFailure(ctx, base_record(run), RunStatus::Failed, e.what());
    return;
  }
  const std::string device = on_device ? ctx.backing.path : loop->path();
  // A filesystem image is mounted here (the standalone agent runs jobs on paths, it does
  // not mount): on a directory beside the image in the work dir, gone on every path.
  std::optional<HostMount> mounted;
  if (!ctx.backing.filesystem.empty()) {
    const std::string dir = std::filesystem::path(ctx.backing.path).parent_path() /
                            ("mnt-" + std::filesystem::path(device).filename().string());
    try {
      mounted.emplace(HostMount::Mount(device, dir, ctx.backing.filesystem));
    } catch (const std::exception& e) {
      for (const auto& run : runs)
        RecordFailure(ctx, base_record(run), RunStatus::Failed, e.what());
      return;
    }
  }
  // One entry per distinct backing: a scenario with several disk sizes or filesystems
  // has several bare-metal units, each on its own loop device.
  ManifestBareMetal unit;
  unit.device = device;
  unit.backing = ctx.backing.path;
  for (const auto& run : runs) unit.runs.push_back(run.run_id);
  if (mounted) {
    unit.mount_dir = mounted->dir();
    unit.mount_filesystem = ctx.backing.filesystem;
  }
  ctx.manifest.AddBareMetal(std::move(unit));
  // The agent's job file and output live in the work dir: a full out dir must not cut
  // the result it prints. Its log is copied to the out dir afterwards, when there is room.
  const TempDir agent_dir(ctx.options.work_dir, "storbed-agent-");
  const std::string work_dir = agent_dir.path();
  const std::string log_dir = ctx.results.File("bare-metal");
  for (const auto& run : runs) {
    if (ctx.rounds && !ctx.rounds->Wanted(run)) continue;  // its round is not needed
    RunRecord record = base_record(run);
    record.device = device;
    record.job.target = device;
    if (mounted) {
      record.job.target = mounted->dir() + "/" + record.job.fs_file;
      record.job.filesystem.clear();
    }
    if (ctx.progress) ctx.progress->RunStarted(run.run_id, run.job.runtime_s);
    // One log per run, so each repeat keeps its own.
    const std::string log = AgentLogName(record.run_id);
    RunOnHost(ctx, std::move(record), run, work_dir);
    std::error_code ec;
    std::filesystem::create_directories(log_dir, ec);
    if (!ec)
      std::filesystem::copy_file(work_dir + "/" + log, log_dir + "/" + log,
                                 std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) ctx.log << "  " << run.run_id << ": warning: agent log not kept: " << ec.message() << "\n";
  }
}

}  // namespace storbed

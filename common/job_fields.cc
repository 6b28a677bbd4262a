#include "job_fields.h"

namespace storbed {
namespace {

using nlohmann::json;
using Row = FieldRow<JobSpec>;

constexpr double kMaxBytes = 16.0 * (1ull << 40);
constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1: exact in a JSON number

// A job row's description; `fio` is set only where fio's option maps 1:1.
FieldSpec Job(std::string name, FieldType type, std::string default_json, double min, double max,
              std::string unit, std::string help, std::string fio = "") {
  return Spec("job", std::move(name), type, std::move(default_json), min, max, std::move(unit),
              std::move(help), {}, std::move(fio));
}

FieldSpec WireOnly(std::string name, FieldType type, std::string default_json, std::string help) {
  FieldSpec f = Job(std::move(name), type, std::move(default_json), 0, 0, "", std::move(help));
  f.in_scenario = false;
  f.matrix = false;
  return f;
}

FieldSpec Enum(std::string name, std::string default_json, std::string help) {
  return Job(std::move(name), FieldType::Enum, std::move(default_json), 0, 0, "", std::move(help));
}

std::vector<Row> Head() {
  FieldSpec name =
      Job("name", FieldType::String, "", 0, 0, "", "Job name, unique in the scenario.");
  name.matrix = false;
  return {
      Bind(name, &JobSpec::name),
      BindEnum(Enum("pattern", "\"sequential\"",
                    "Offset order: sequential, random (each block once per pass), gappy (read, "
                    "skip), strided (every stride-th block)."),
               &JobSpec::pattern, ParsePattern),
      BindEnum(Enum("rw", "\"read\"",
                    "IO direction; mixed: each IO is a read with probability rwmixread/100."),
               &JobSpec::rw, ParseDirection),
      Bind(Job("rwmixread", FieldType::Integer, "50", 0, 100, "%",
               "rw mixed: percent of IOs that are reads (fio rwmixread).", "rwmixread"),
           &JobSpec::read_pct),
      Bind(Job("stride", FieldType::Integer, "2", 1, 1 << 20, "blocks",
               "pattern strided: distance between consecutive IOs."),
           &JobSpec::stride_blocks),
      BindEnum(Enum("random_distribution", "\"uniform\"",
                    "pattern random: which blocks are favoured (fio random_distribution)."),
               &JobSpec::distribution, ParseDistribution),
      Bind(Job("zipf_theta", FieldType::Number, "1.2", 0.01, 100, "",
               "random_distribution zipf: skew (not 1)."),
           &JobSpec::zipf_theta),
      Bind(Job("hot_fraction", FieldType::Number, "0.2", 0, 1, "",
               "random_distribution hotcold: share of the region that is hot (between 0 and 1)."),
           &JobSpec::hot_fraction),
      Bind(Job("hot_pct", FieldType::Number, "80", 0, 100, "%",
               "random_distribution hotcold: percent of IOs that go to the hot share."),
           &JobSpec::hot_pct),
      BindEnum(Enum("ioengine", "\"psync\"",
                    "How the agent issues IO (mmap: loads and stores through a mapping; needs "
                    "direct false)."),
               &JobSpec::engine, ParseEngine),
      Bind(Job("bs", FieldType::Size, "\"4k\"", 512, 64 << 20, "bytes",
               "Block size per IO (a multiple of 512).", "bs"),
           &JobSpec::bs),
      Bind(Job("iodepth", FieldType::Integer, "1", 1, 4096, "", "IOs kept in flight.", "iodepth"),
           &JobSpec::iodepth),
      BindEnum(Enum("reap", "\"wait\"",
                    "ioengine io_uring or libaio: wait (sleep until a completion arrives) or poll "
                    "(check the completion ring without sleeping; keeps a CPU busy and removes "
                    "the wake-up latency between a completion and the next submission; fio "
                    "iodepth_batch_complete_min=0)."),
               &JobSpec::reap, ParseReap),
      Bind(Job("submit_batch", FieldType::Integer, "0", 0, 4096, "IOs",
               "ioengine io_uring or libaio: IOs handed to the kernel per submit call, at most "
               "iodepth (fio iodepth_batch_submit); 0 = the agent's choice: 2, and 1 for "
               "buffered libaio, which does each IO inside io_submit. A call of more than 2 "
               "holds its bios in a block plug until its last IO is prepared."),
           &JobSpec::submit_batch),
      Bind(Job("numjobs", FieldType::Integer, "1", 1, 64, "",
               "threads running the job at once (fio numjobs); each has its own fd and engine.",
               "numjobs"),
           &JobSpec::numjobs),
      Bind(Job("numjobs_split", FieldType::Bool, "false", 0, 0, "",
               "numjobs: give each thread its own contiguous, bs-aligned slice of the region "
               "instead of sharing the whole region (io_size and runtime apply per thread, like "
               "fio)."),
           &JobSpec::numjobs_split),
      Bind(Job("size", FieldType::Size, "0", 0, kMaxBytes, "bytes",
               "Region of the disk the job covers; 0 = the whole disk.", "size"),
           &JobSpec::size),
      Bind(Job("io_size", FieldType::Size, "0", 0, kMaxBytes, "bytes",
               "Stop after this many bytes; 0 = one pass over the region (or runtime).", "io_size"),
           &JobSpec::io_limit),
      Bind(Job("runtime", FieldType::Number, "0", 0, 86400, "s",
               "Stop after this long (at least 0.01 s); 0 = no time limit."),
           &JobSpec::runtime_s),
      Bind(Job("direct", FieldType::Bool, "true", 0, 0, "", "O_DIRECT (bypass the page cache).",
               "direct"),
           &JobSpec::direct),
      Bind(Job("huge_buffers", FieldType::Bool, "false", 0, 0, "",
               "Put the IO buffers on transparent huge pages (madvise): a 1 MiB O_DIRECT IO is "
               "then one physically contiguous segment instead of 256 pages, fewer segments "
               "down the whole virtual disk path (fio iomem=mmaphuge, which uses hugetlbfs). "
               "A guest with THP off (guests below 512 MiB boot so) has it set to madvise for "
               "the job; a host's setting is left alone. The result's huge_buffer_bytes says "
               "how much the kernel gave."),
           &JobSpec::huge_buffers),
  };
}

std::vector<Row> Middle() {
  return {
      BindEnum(Enum("cache", "\"cold\"",
                    "Page cache at the start: cold (the target's pages dropped: fsync, "
                    "fadvise DONTNEED, BLKFLSBUF for a device; in a guest, all the guest's "
                    "caches), cold-global (sync and drop_caches=3: on bare metal every "
                    "tenant's cache, on request only), keep (untouched), warm (region read "
                    "first), partial (cached_fraction of its blocks read first). Must agree with "
                    "invalidate when both are given."),
               &JobSpec::cache, ParseCacheState),
      Bind(Job("cached_fraction", FieldType::Number, "0", 0, 1, "",
               "cache partial (required there): fraction of the region's blocks cached first."),
           &JobSpec::cached_fraction),
      Bind(Job("loops", FieldType::Integer, "1", 1, 1000000, "",
               "Passes over the region (fio loops), each of io_size bytes or the whole region; "
               "with runtime, passes repeat until it ends whatever loops says."),
           &JobSpec::loops),
      Bind(Job("invalidate_each_pass", FieldType::Bool, "false", 0, 0, "",
               "Also drop the target's pages (fadvise DONTNEED, BLKFLSBUF for a device) before "
               "every pass after the first, as fio's invalidate=1 does at each loop and "
               "time_based pass. Each drop is timed (the result's invalidations_s) and kept out "
               "of runtime unless invalidate_in_runtime. Needs cache cold or cold-global."),
           &JobSpec::invalidate_each_pass),
      Bind(Job("invalidate_in_runtime", FieldType::Bool, "false", 0, 0, "",
               "invalidate_each_pass: count the drops in runtime (and so in IOPS and MiB/s), "
               "as fio does; false keeps the IO phase's figures free of them."),
           &JobSpec::invalidate_in_runtime),
      BindEnum(Enum("fadvise_hint", "\"none\"",
                    "posix_fadvise on the region before the IO phase (fio fadvise_hint)."),
               &JobSpec::fadvise, ParseAccessHint),
      BindEnum(Enum("madvise_hint", "\"none\"", "ioengine mmap: madvise on each mapped window."),
               &JobSpec::madvise, ParseAccessHint),
      Bind(Job("mmap_window", FieldType::Size, "0", 0, kMaxBytes, "bytes",
               "ioengine mmap: bytes mapped at a time (a multiple of 4k); 0 = the whole region."),
           &JobSpec::mmap_window),
      Bind(Job("verify", FieldType::Bool, "false", 0, 0, "",
               "Writes stamp each block with its offset and the seed; reads check them."),
           &JobSpec::verify),
      BindNested(Job("read_ahead_kb", FieldType::Integer, "-1", -1, 1 << 20, "KiB",
                     "Guest queue/read_ahead_kb of the disk under test; -1 = leave as is."),
                 &JobSpec::tunables, &BlockTunables::read_ahead_kb),
      BindNested(Job("scheduler", FieldType::String, "\"\"", 0, 0, "",
                     "Guest queue/scheduler (none, mq-deadline, ...); \"\" = leave as is."),
                 &JobSpec::tunables, &BlockTunables::scheduler),
      BindNested(Job("nr_requests", FieldType::Integer, "-1", -1, 1 << 20, "",
                     "Guest queue/nr_requests; -1 = leave as is."),
                 &JobSpec::tunables, &BlockTunables::nr_requests),
      BindNested(Job("max_sectors_kb", FieldType::Integer, "-1", -1, 1 << 20, "KiB",
                     "Guest queue/max_sectors_kb; -1 = leave as is."),
                 &JobSpec::tunables, &BlockTunables::max_sectors_kb),
  };
}

FieldSpec FilesystemRow() {
  FieldSpec f = WireOnly("filesystem", FieldType::Enum, "\"\"",
                         "ext4 or xfs on the target: the job runs on fs_file inside it.");
  f.allowed = {"", "ext4", "xfs"};
  return f;
}

std::vector<Row> Tail() {
  return {
      Bind(Job("gappy_read", FieldType::Integer, "1", 1, 1 << 20, "blocks",
               "gappy: blocks read in a row."),
           &JobSpec::gappy_read),
      Bind(Job("gappy_skip", FieldType::Integer, "1", 0, 1 << 20, "blocks",
               "gappy: blocks skipped after each run of reads (fio rw=read:<skip>)."),
           &JobSpec::gappy_skip),
      Bind(Job("random_run", FieldType::Integer, "1", 1, 1 << 20, "blocks",
               "random (uniform): blocks read or written in a row from each random offset, "
               "every run once per pass (fio rw=randread:N)."),
           &JobSpec::random_run),
      Bind(Job("fsync", FieldType::Integer, "0", 0, 1 << 30, "writes",
               "Write jobs: fsync after every N writes; 0 = never (fio fsync=N).", "fsync"),
           &JobSpec::fsync_every),
      Bind(Job("end_fsync", FieldType::Bool, "false", 0, 0, "",
               "Write jobs: one fsync when the IO phase ends (fio end_fsync).", "end_fsync"),
           &JobSpec::end_fsync),
      Bind(Job("inflight_sample_ms", FieldType::Integer, "10", 0, 60000, "ms",
               "Agent's /sys/block/X/inflight sampling period; 0 = off."),
           &JobSpec::inflight_sample_ms),
      Bind(Job("stats_sample_ms", FieldType::Integer, "100", 0, 60000, "ms",
               "Agent's diskstats, meminfo, vmstat and iowait sampling period; 0 = off."),
           &JobSpec::stats_sample_ms),
      Bind(Job("trace", FieldType::Bool, "false", 0, 0, "",
               "Follow every IO through each layer of its path (the block tracepoints of the "
               "target's disk, QEMU's trace events and the host device's under a guest) and "
               "report where its time went (docs/tracing.md). Needs direct IO on a block "
               "device, root and tracefs; costs IOPS (measured: docs/tracing.md)."),
           &JobSpec::trace),
      Bind(Job("trace_detail", FieldType::Bool, "false", 0, 0, "",
               "trace: also follow each IO through QEMU's block layer and its submission to "
               "the host (two more QEMU trace events per IO), splitting QEMU's time into device "
               "emulation, block layer and host; needed to join a qcow2 backing's host device. "
               "Costs more IOPS (docs/tracing.md)."),
           &JobSpec::trace_detail),
      Bind(Job("seed", FieldType::Integer, "1", 0, kMaxSeed, "", "Seed of the random pattern."),
           &JobSpec::seed),
      // Filled in per run from the target and disk.filesystem.
      Bind(WireOnly("target", FieldType::String, "", "Device or file path as the agent sees it."),
           &JobSpec::target),
      Bind(WireOnly("offset", FieldType::Size, "0", "First byte of the region."), &JobSpec::offset),
      Bind(FilesystemRow(), &JobSpec::filesystem),
      Bind(WireOnly("fs_file", FieldType::String, "\"storbed.dat\"",
                    "Path of the test file inside the filesystem, relative."),
           &JobSpec::fs_file),
  };
}

std::vector<Row> MakeRows() {
  std::vector<Row> rows;
  for (auto part : {Head(), Middle(), Tail()})
    for (auto& row : part) rows.push_back(std::move(row));
  return rows;
}

}  // namespace

const std::vector<FieldRow<JobSpec>>& JobRows() {
  static const std::vector<Row> kRows = MakeRows();
  return kRows;
}

const std::vector<std::pair<std::string, std::string>>& JobOldNames() {
  static const std::vector<std::pair<std::string, std::string>> kOld = {
      {"engine", "ioengine"},
      {"io_limit", "io_size"},
      {"fsync_every", "fsync"},
      {"read_pct", "rwmixread"},
      {"runtime_s", "runtime"},
      {"stride_blocks", "stride"},
      {"distribution", "random_distribution"},
      {"fadvise", "fadvise_hint"},
      {"madvise", "madvise_hint"}};
  return kOld;
}

json UpgradeJobJson(const json& j) {
  if (!j.is_object() || j.value("schema_version", 1) >= 2) return j;
  json out = j;
  for (const auto& [old_name, name] : JobOldNames()) {
    if (!out.contains(old_name)) continue;
    if (!out.contains(name)) out[name] = out[old_name];
    out.erase(old_name);
  }
  // Schema 1 kept the queue tunables in one object.
  if (out.contains("tunables") && out["tunables"].is_object()) {
    for (const auto& [key, value] : out["tunables"].items())
      if (!out.contains(key)) out[key] = value;
    out.erase("tunables");
  }
  out["schema_version"] = kJobSchemaVersion;
  return out;
}

}  // namespace storbed

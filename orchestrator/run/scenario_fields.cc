#include "run/scenario_fields.h"

#include "engine_table.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <cstdint>
#include <sstream>

#include "backend/disk_driver.h"
#include "run/target_kind.h"

namespace storbed {

namespace {

// The guest block queue tunables, declared once: a job's own, and the machine's defaults
// for every job on it.
std::vector<FieldSpec> QueueTunables(const std::string& section, const std::string& prefix) {
  return {
      {section, "read_ahead_kb", FieldType::Integer, "-1", -1, 1 << 20, {}, "KiB",
       prefix + "Guest queue/read_ahead_kb of the disk under test; -1 = leave as is."},
      {section, "scheduler", FieldType::String, "\"\"", 0, 0, {}, "",
       prefix + "Guest queue/scheduler (none, mq-deadline, ...); \"\" = leave as is."},
      {section, "nr_requests", FieldType::Integer, "-1", -1, 1 << 20, {}, "",
       prefix + "Guest queue/nr_requests; -1 = leave as is."},
      {section, "max_sectors_kb", FieldType::Integer, "-1", -1, 1 << 20, {}, "KiB",
       prefix + "Guest queue/max_sectors_kb; -1 = leave as is."},
  };
}

std::vector<FieldSpec> MakeFields() {
  std::vector<FieldSpec> fields = {
      // scenario
      {"scenario", "name", FieldType::String, "", 0, 0, {}, "", "Name of the suite, used in reports."},
      {"scenario", "description", FieldType::String, "\"\"", 0, 0, {}, "", "What the suite shows."},
      {"scenario", "targets", FieldType::TargetList,
       nlohmann::json(DefaultTargetNames()).dump(), 0, 0, TargetNames(), "", TargetsHelp()},
      {"scenario", "matrix_exclude", FieldType::ExcludeList, "[]", 0, 0, {}, "",
       "Combinations to drop from the matrix: a list of objects of field -> value (\"disk.aio\", "
       "\"job.bs\", a short name when unambiguous, or \"target\"); a combination matching every "
       "entry of one object is dropped."},
      {"scenario", "repeats", FieldType::Integer, "1", 1, 1000, {}, "",
       "Measured runs per combination (run ids end in -r<N> when more than 1)."},
      {"scenario", "warmup", FieldType::Integer, "0", 0, 100, {}, "",
       "Warm-up runs per combination before the measured ones; recorded with status "
       "\"warmup\" and left out of the report table."},
      {"scenario", "order", FieldType::Enum, "\"sequential\"", 0, 0, {"sequential", "random"}, "",
       "Run order: sequential (as declared), or random (machines and runs shuffled with "
       "order_seed; the runs of one machine stay together)."},
      {"scenario", "order_seed", FieldType::Integer, "1", 0, 9007199254740991.0, {}, "",
       "Seed of the random order (recorded in the manifest, so a run order can be repeated)."},
      // machine
      {"machine", "vcpus", FieldType::Integer, "2", 1, 64, {}, "", "Guest vCPUs."},
      {"machine", "memory", FieldType::Size, "\"1g\"", 128 << 20, 64.0 * (1ull << 30), {}, "bytes",
       "Guest memory (accepts k, m, g suffixes)."},
      {"machine", "kernel", FieldType::String, "\"host\"", 0, 0, {}, "",
       "Guest kernel image: \"host\" = newest /boot/vmlinuz-*, or a bzImage path."},
      {"machine", "modules_dir", FieldType::String, "\"\"", 0, 0, {}, "",
       "Modules directory for a kernel path (holds modules.dep); default /lib/modules/<release>."},
      {"machine", "accel", FieldType::Enum, "\"auto\"", 0, 0, {"auto", "kvm", "tcg"}, "",
       "Accelerator: auto uses kvm only when the CPU flags, /dev/kvm and a probe guest allow it.",
       false},
      {"machine", "sample_period_ms", FieldType::Integer, "100", 10, 60000, {}, "ms",
       "Host samplers' period during each job: QMP blockstats, virtqueues, QEMU threads, "
       "host device."},
      {"machine", "boot_timeout", FieldType::Number, "180", 5, 3600, {}, "s",
       "Seconds to wait for the agent's hello after QEMU starts."},
  };
  for (auto& f : QueueTunables("machine", "Default for every job on this machine (a job's own "
                                          "value wins). "))
    fields.push_back(std::move(f));
  std::vector<FieldSpec> rest = {
      // disk
      {"disk", "size", FieldType::Size, "\"64m\"", 1 << 20, 16.0 * (1ull << 40), {}, "bytes",
       "Size of the raw backing file storbed creates and fills with data (with driver "
       "null-co: the size of the disk QEMU shows)."},
      {"disk", "backing", FieldType::String, "\"\"", 0, 0, {}, "",
       "An existing file or block device to use instead (never created, never filled); a "
       "block device (/dev/...) goes to QEMU through driver host_device."},
      {"disk", "allow_writes", FieldType::Bool, "false", 0, 0, {}, "",
       "Allow write jobs on a block device named in disk.backing (they overwrite its data)."},
      {"disk", "format", FieldType::Enum, "\"raw\"", 0, 0, {"raw", "qcow2"}, "",
       "Image format of the backing storbed creates: qcow2 is converted from the filled raw "
       "file (qemu-img convert), so every cluster holds data. Bare metal reads the raw file."},
      {"disk", "driver", FieldType::Enum, "\"file\"", 0, 0, ScenarioDiskDrivers(), "",
       "QEMU's protocol driver: file (the backing), or null-co (no storage: QEMU completes "
       "each request after null_latency, so only the virtual path is measured; guest "
       "targets only)."},
      {"disk", "null_latency", FieldType::Duration, "0", 0, 1e9, {}, "",
       "driver null-co: time QEMU waits before completing each request (\"50us\", \"1ms\")."},
      {"disk", "filesystem", FieldType::Enum, "\"none\"", 0, 0, {"none", "ext4", "xfs"}, "",
       "none: jobs run on the block device. ext4 or xfs: storbed makes an image of "
       "max(disk.size, what the filesystem needs; xfs at least 300 MiB) holding a filled "
       "test file, and jobs run on that file (guests mount it at /mnt/storbed/<dev>, bare "
       "metal on a loop device in the work directory)."},
      {"disk", "fs_file_size", FieldType::Size, "0", 0, 16.0 * (1ull << 40), {}, "bytes",
       "filesystem ext4 or xfs: size of the test file; 0 = 3/4 of disk.size."},
      {"disk", "num_queues", FieldType::Integer, "1", 1, 64, {}, "",
       "virtio-blk and virtio-scsi queues (num-queues); NVMe max_ioqpairs."},
      {"disk", "queue_size", FieldType::Integer, "256", 2, 1024, {}, "",
       "virtio-blk and virtio-scsi queue-size (a power of two)."},
      {"disk", "iothread", FieldType::Bool, "false", 0, 0, {}, "",
       "Give the virtio-blk disk or the virtio-scsi controller its own QEMU iothread."},
      {"disk", "aio", FieldType::Enum, "\"threads\"", 0, 0, {"threads", "native", "io_uring"}, "",
       "QEMU's host IO method for the backing (native needs cache none)."},
      {"disk", "cache", FieldType::Enum, "\"none\"", 0, 0, {"none", "writeback"}, "",
       "QEMU cache mode: none = O_DIRECT on the host, writeback = host page cache."},
      {"disk", "no_flush", FieldType::Bool, "false", 0, 0, {}, "",
       "cache.no-flush=on: QEMU acknowledges guest flushes without passing them on (nothing "
       "is durable; the durability check shows it)."},
      {"disk", "request_merging", FieldType::Bool, "true", 0, 0, {}, "",
       "virtio-blk request-merging in QEMU (merges adjacent guest requests before submission)."},
      // job
      {"job", "name", FieldType::String, "", 0, 0, {}, "", "Job name, unique in the scenario.",
       false},
      {"job", "pattern", FieldType::Enum, "\"sequential\"", 0, 0,
       {"sequential", "random", "gappy", "strided"}, "",
       "Offset order: sequential, random (each block once per pass), gappy (read, skip), "
       "strided (every stride-th block)."},
      {"job", "rw", FieldType::Enum, "\"read\"", 0, 0, {"read", "write", "mixed"}, "",
       "IO direction; mixed: each IO is a read with probability rwmixread/100."},
      {"job", "rwmixread", FieldType::Integer, "50", 0, 100, {}, "%",
       "rw mixed: percent of IOs that are reads (fio rwmixread)."},
      {"job", "stride", FieldType::Integer, "2", 1, 1 << 20, {}, "blocks",
       "pattern strided: distance between consecutive IOs."},
      {"job", "random_distribution", FieldType::Enum, "\"uniform\"", 0, 0,
       {"uniform", "zipf", "hotcold"}, "",
       "pattern random: which blocks are favoured (fio random_distribution)."},
      {"job", "zipf_theta", FieldType::Number, "1.2", 0.01, 100, {}, "",
       "random_distribution zipf: skew (not 1)."},
      {"job", "hot_fraction", FieldType::Number, "0.2", 0, 1, {}, "",
       "random_distribution hotcold: share of the region that is hot (between 0 and 1)."},
      {"job", "hot_pct", FieldType::Number, "80", 0, 100, {}, "%",
       "random_distribution hotcold: percent of IOs that go to the hot share."},
      {"job", "ioengine", FieldType::Enum, "\"psync\"", 0, 0, EngineNames(),
       "", "How the agent issues IO (mmap: loads and stores through a mapping; needs direct "
       "false)."},
      {"job", "bs", FieldType::Size, "\"4k\"", 512, 64 << 20, {}, "bytes",
       "Block size per IO (a multiple of 512)."},
      {"job", "iodepth", FieldType::Integer, "1", 1, 4096, {}, "", "IOs kept in flight."},
      {"job", "reap", FieldType::Enum, "\"wait\"", 0, 0, {"wait", "poll"}, "",
       "ioengine io_uring or libaio: wait (sleep until a completion arrives) or poll (check the "
       "completion ring without sleeping; keeps a CPU busy and removes the wake-up latency "
       "between a completion and the next submission; fio iodepth_batch_complete_min=0)."},
      {"job", "numjobs", FieldType::Integer, "1", 1, 64, {}, "",
       "threads running the job at once (fio numjobs); each has its own fd and engine"},
      {"job", "numjobs_split", FieldType::Bool, "false", 0, 0, {}, "",
       "numjobs: give each thread its own contiguous, bs-aligned slice of the region instead "
       "of sharing the whole region (io_size and runtime apply per thread, like fio)."},
      {"job", "size", FieldType::Size, "0", 0, 16.0 * (1ull << 40), {}, "bytes",
       "Region of the disk the job covers; 0 = the whole disk."},
      {"job", "io_size", FieldType::Size, "0", 0, 16.0 * (1ull << 40), {}, "bytes",
       "Stop after this many bytes; 0 = one pass over the region (or runtime)."},
      {"job", "runtime", FieldType::Number, "0", 0, 86400, {}, "s",
       "Stop after this long; 0 = no time limit."},
      {"job", "direct", FieldType::Bool, "true", 0, 0, {}, "", "O_DIRECT (bypass the page cache)."},
      {"job", "invalidate", FieldType::Bool, "true", 0, 0, {}, "",
       "Cold start before the job: sync, drop_caches, POSIX_FADV_DONTNEED (timed separately). "
       "fio's bool for cache cold (true) or keep (false)."},
      {"job", "cache", FieldType::Enum, "\"cold\"", 0, 0, {"cold", "keep", "warm", "partial"}, "",
       "Page cache at the start: cold (dropped), keep (untouched), warm (region read first), "
       "partial (cached_fraction of its blocks read first). Must agree with invalidate when both "
       "are given."},
      {"job", "cached_fraction", FieldType::Number, "0", 0, 1, {}, "",
       "cache partial (required there): fraction of the region's blocks cached first."},
      {"job", "fadvise_hint", FieldType::Enum, "\"none\"", 0, 0,
       {"none", "sequential", "random", "willneed"}, "",
       "posix_fadvise on the region before the IO phase (fio fadvise_hint)."},
      {"job", "madvise_hint", FieldType::Enum, "\"none\"", 0, 0,
       {"none", "sequential", "random", "willneed"}, "",
       "ioengine mmap: madvise on each mapped window."},
      {"job", "mmap_window", FieldType::Size, "0", 0, 16.0 * (1ull << 40), {}, "bytes",
       "ioengine mmap: bytes mapped at a time (a multiple of 4k); 0 = the whole region."},
      {"job", "verify", FieldType::Bool, "false", 0, 0, {}, "",
       "Writes stamp each block with its offset and the seed; reads check them."},
  };
  for (auto& f : QueueTunables("job", "")) rest.push_back(std::move(f));
  std::vector<FieldSpec> tail = {
      {"job", "gappy_read", FieldType::Integer, "1", 1, 1 << 20, {}, "blocks",
       "gappy: blocks read in a row."},
      {"job", "gappy_skip", FieldType::Integer, "1", 0, 1 << 20, {}, "blocks",
       "gappy: blocks skipped after each run of reads (fio rw=read:<skip>)."},
      {"job", "fsync", FieldType::Integer, "0", 0, 1 << 30, {}, "writes",
       "Write jobs: fsync after every N writes; 0 = never (fio fsync=N)."},
      {"job", "end_fsync", FieldType::Bool, "false", 0, 0, {}, "",
       "Write jobs: one fsync when the IO phase ends (fio end_fsync)."},
      {"job", "inflight_sample_ms", FieldType::Integer, "10", 0, 60000, {}, "ms",
       "Agent's /sys/block/X/inflight sampling period; 0 = off."},
      {"job", "stats_sample_ms", FieldType::Integer, "100", 0, 60000, {}, "ms",
       "Agent's diskstats, meminfo, vmstat and iowait sampling period; 0 = off."},
      {"job", "seed", FieldType::Integer, "1", 0, 9007199254740991.0, {}, "",
       "Seed of the random pattern."},
  };
  for (auto* part : {&rest, &tail})
    for (auto& f : *part) fields.push_back(std::move(f));
  return fields;
}

}  // namespace

const std::vector<FieldSpec>& ScenarioFields() {
  static const std::vector<FieldSpec> kFields = MakeFields();
  return kFields;
}

std::vector<const FieldSpec*> FieldsOf(const std::string& section) {
  std::vector<const FieldSpec*> out;
  for (const auto& f : ScenarioFields())
    if (f.section == section) out.push_back(&f);
  return out;
}

std::string FormatFieldValue(const FieldSpec& f, double v) {
  if (f.type == FieldType::Size) {
    static const char* const kSuffix[] = {"", "k", "m", "g", "t"};
    uint64_t n = static_cast<uint64_t>(v);
    int i = 0;
    while (i < 4 && n >= 1024 && n % 1024 == 0) n /= 1024, ++i;
    return std::to_string(n) + kSuffix[i];
  }
  if (f.type == FieldType::Duration) {
    static const std::pair<const char*, uint64_t> kUnits[] = {
        {"s", 1000000000}, {"ms", 1000000}, {"us", 1000}};
    const uint64_t ns = static_cast<uint64_t>(v);
    for (const auto& [unit, scale] : kUnits)
      if (ns != 0 && ns % scale == 0) return std::to_string(ns / scale) + unit;
    return std::to_string(ns) + (ns == 0 ? "" : "ns");
  }
  if (v == std::floor(v) && std::fabs(v) < 1e16) return std::to_string(static_cast<int64_t>(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

uint64_t ParseDuration(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0) return value.get<uint64_t>();
  const std::string usage = "expected a duration like \"50us\", \"2ms\" or \"1s\", got ";
  if (!value.is_string()) throw std::invalid_argument(usage + value.dump());
  const std::string s = value.get<std::string>();
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 12) throw std::invalid_argument(usage + value.dump());
  const uint64_t n = std::stoull(s.substr(0, i));
  static const std::pair<const char*, uint64_t> kUnits[] = {
      {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
  for (const auto& [unit, scale] : kUnits)
    if (s.substr(i) == unit) return n * scale;
  throw std::invalid_argument("unknown duration unit '" + s.substr(i) + "' in \"" + s +
                              "\" (use ns, us, ms or s)");
}

std::string TypeName(FieldType type) {
  switch (type) {
    case FieldType::Integer: return "integer";
    case FieldType::Size: return "size";
    case FieldType::Number: return "number";
    case FieldType::Duration: return "duration";
    case FieldType::Bool: return "boolean";
    case FieldType::String: return "string";
    case FieldType::Enum: return "one of a set";
    case FieldType::TargetList: return "list of targets";
    case FieldType::ExcludeList: return "list of objects";
  }
  return "?";
}

}  // namespace storbed

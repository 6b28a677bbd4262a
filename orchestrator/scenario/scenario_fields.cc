#include "scenario/scenario_fields.h"

#include "engine_table.h"
#include "job_fields.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <cstdint>
#include <sstream>

#include "backend/disk_driver.h"
#include "scenario/target_kind.h"

namespace storbed {

namespace {

using nlohmann::json;

constexpr double kMaxBytes = 16.0 * (1ull << 40);

// The guest block queue tunables of a section, declared once: a job's own (job_fields.cc)
// and the machine's defaults for every job on it.
template <class T>
std::vector<FieldRow<T>> QueueTunables(const std::string& section, BlockTunables T::*t,
                                       const std::string& prefix) {
  std::vector<FieldRow<T>> rows;
  for (const auto& job : JobRows()) {
    FieldSpec f = job.spec;
    f.section = section;
    f.help = prefix + f.help;
    f.fio = "";
    if (f.name == "read_ahead_kb")
      rows.push_back(BindNested(f, t, &BlockTunables::read_ahead_kb));
    else if (f.name == "scheduler")
      rows.push_back(BindNested(f, t, &BlockTunables::scheduler));
    else if (f.name == "nr_requests")
      rows.push_back(BindNested(f, t, &BlockTunables::nr_requests));
    else if (f.name == "max_sectors_kb")
      rows.push_back(BindNested(f, t, &BlockTunables::max_sectors_kb));
  }
  return rows;
}

std::vector<FieldSpec> TopLevel() {
  return {
      Spec("scenario", "name", FieldType::String, "", 0, 0, "", "Name of the suite, used in reports."),
      Spec("scenario", "description", FieldType::String, "\"\"", 0, 0, "", "What the suite shows."),
      Spec("scenario", "targets", FieldType::TargetList,
           nlohmann::json(DefaultTargetNames()).dump(), 0, 0, "", TargetsHelp(), TargetNames()),
      Spec("scenario", "matrix_exclude", FieldType::ExcludeList, "[]", 0, 0, "",
           "Combinations to drop from the matrix: a list of objects of field -> value "
           "(\"disk.aio\", \"job.bs\", a short name when unambiguous, or \"target\"); a "
           "combination matching every entry of one object is dropped."),
      Spec("scenario", "repeats", FieldType::Integer, "1", 1, 1000, "",
           "Measured runs per combination (run ids end in -r<N> when more than 1)."),
      Spec("scenario", "warmup", FieldType::Integer, "0", 0, 100, "",
           "Warm-up runs per combination before the measured ones; recorded with status "
           "\"warmup\" and left out of the report table."),
      Spec("scenario", "order", FieldType::Enum, "\"sequential\"", 0, 0, "",
           "Run order: sequential (as declared); random (machines and runs shuffled with "
           "order_seed; the runs of one machine stay together); or interleaved, for A/B "
           "comparisons: each repeat is a round that boots every machine once in a fresh "
           "random order and runs every combination once, shuffled (warm-ups at every boot), "
           "so drift hits every side of every factor alike. Runs one machine at a time.",
           {"sequential", "random", "interleaved"}),
      Spec("scenario", "order_seed", FieldType::Integer, "1", 0, 9007199254740991.0, "",
           "Seed of the random and interleaved orders (recorded in the manifest, so a run order can be "
           "repeated)."),
      Spec("scenario", "reboot", FieldType::Enum, "\"per_round\"", 0, 0, "",
           "With order interleaved: per_round boots every machine afresh in every round; "
           "per_machine boots each machine once and keeps it, paused (QMP stop: no guest "
           "time passes, no host CPU is used), between its rounds, so a round costs its "
           "jobs, not its boots. Each kept machine has its own backing file, and machines "
           "are shut down (to be booted again when next needed) when those kept would hold "
           "more than half the host's available memory. A disk passed through (the "
           "bare-metal twin needs the device back), a named disk.backing (one file or "
           "device), several hosts or a host that is another machine boot per round, and "
           "the log says why. Other orders boot each machine "
           "once anyway (docs/compare.md, \"Rounds and boots\").",
           {"per_round", "per_machine"}),
  };
}

std::vector<FieldRow<MachineConfig>> MakeMachineRows() {
  using M = MachineConfig;
  auto spec = [](auto&&... a) { return Spec("machine", a...); };
  std::vector<std::string> accels = {"auto"};
  for (const auto& a : EnumNames<Accel>()) accels.push_back(a);
  FieldSpec accel = spec("accel", FieldType::Enum, "\"auto\"", 0, 0, "",
                         "Accelerator: auto uses kvm only when the CPU flags, /dev/kvm and a "
                         "probe guest allow it.",
                         accels);
  accel.matrix = false;
  std::vector<FieldRow<M>> rows = {
      Bind(spec("vcpus", FieldType::Integer, "2", 1, 64, "", "Guest vCPUs."), &M::vcpus),
      Bind(spec("memory", FieldType::Size, "\"1g\"", 128 << 20, 64.0 * (1ull << 30), "bytes",
                "Guest memory (accepts k, m, g suffixes)."),
           &M::memory_bytes),
      Bind(spec("kernel", FieldType::String, "\"host\"", 0, 0, "",
                "Guest kernel image: \"host\" = newest /boot/vmlinuz-*, or a bzImage path; with "
                "machine.image also \"disk\" (the image's own bootloader)."),
           &M::kernel),
      Bind(spec("modules_dir", FieldType::String, "\"\"", 0, 0, "",
                "Modules directory for a kernel path (holds modules.dep); default "
                "/lib/modules/<release>."),
           &M::modules_dir),
      Bind(spec("image", FieldType::String, "\"\"", 0, 0, "",
                "A foreign guest: a qcow2 or raw disk image of a distribution, booted as the "
                "root disk through a qcow2 overlay in the work directory (the image is never "
                "written; its sha256 is recorded before and after). The agent is pushed in "
                "through the image's qemu-guest-agent. machine.kernel is then the image's own "
                "kernel (scripts/make-debian-image.sh exports it) or \"disk\" for its "
                "bootloader. \"\" = storbed's initramfs guest."),
           &M::image),
      Bind(spec("initrd", FieldType::String, "\"\"", 0, 0, "",
                "With machine.image and a kernel path: that kernel's initrd (the image's own)."),
           &M::initrd),
      Bind(spec("append", FieldType::String, "\"\"", 0, 0, "",
                "With machine.image and a kernel path: the kernel command line, at least "
                "root=... (make-debian-image.sh writes it to the append file beside the image)."),
           &M::append),
      Bind(spec("agent_push", FieldType::Enum, "\"auto\"", 0, 0, "",
                "With machine.image: how the agent gets into the guest. qga: through the "
                "image's qemu-guest-agent (guest-file-write, guest-exec); cloud-init: a NoCloud "
                "seed disk whose user-data copies the agent from a second small disk and starts "
                "it; auto: both are offered and the first that works is used (the manifest's "
                "agent_push.path says which). Fails at once when the guest allows neither.",
                std::vector<std::string>{"auto", "qga", "cloud-init"}),
           &M::agent_push),
      Bind(accel, &M::accel),
      Bind(spec("sample_period_ms", FieldType::Integer, "100", 10, 60000, "ms",
                "Host samplers' period during each job: QMP blockstats, QEMU threads, host "
                "device (the virtqueues have their own)."),
           &M::sample_period_ms),
      Bind(spec("virtqueue_sample_ms", FieldType::Integer, "10", 1, 60000, "ms",
                "The virtqueue sampler's period (x-query-virtio-queue-status, point samples "
                "of inuse): fast enough for a few hundred samples in a short job."),
           &M::virtqueue_sample_ms),
      Bind(spec("boot_timeout", FieldType::Number, "180", 5, 3600, "s",
                "Seconds to wait for the agent's hello after QEMU starts."),
           &M::boot_timeout_s),
  };
  for (auto& r : QueueTunables("machine", &M::tunables,
                               "Default for every job on this machine (a job's own value wins). "))
    rows.push_back(std::move(r));
  return rows;
}

// disk.filesystem "none" is the member's "".
FieldRow<DiskConfig> FilesystemRow(FieldSpec spec) {
  FieldRow<DiskConfig> row = Bind(std::move(spec), &DiskConfig::filesystem);
  row.get = [](const DiskConfig& d) { return json(d.filesystem.empty() ? "none" : d.filesystem); };
  row.set = [](DiskConfig& d, const json& v) {
    d.filesystem = v == "none" ? "" : v.get<std::string>();
  };
  return row;
}

// disk.passthrough: one device per scenario (a list would hand over several in turn).
FieldRow<DiskConfig> PassthroughRow(FieldSpec spec) {
  spec.matrix = false;
  return Bind(std::move(spec), &DiskConfig::passthrough);
}

std::vector<FieldRow<DiskConfig>> MakeDiskRows() {
  using D = DiskConfig;
  auto spec = [](auto&&... a) { return Spec("disk", a...); };
  return {
      Bind(spec("size", FieldType::Size, "\"64m\"", 1 << 20, kMaxBytes, "bytes",
                "Size of the raw backing file storbed creates and fills with data (with driver "
                "null-co: the size of the disk QEMU shows)."),
           &D::size_bytes),
      Bind(spec("backing", FieldType::String, "\"\"", 0, 0, "",
                "An existing file or block device to use instead (never created, never "
                "filled); a block device (/dev/...) goes to QEMU through driver host_device."),
           &D::backing),
      Bind(spec("allow_writes", FieldType::Bool, "false", 0, 0, "",
                "Allow write jobs on a block device named in disk.backing (they overwrite its "
                "data)."),
           &D::allow_writes),
      PassthroughRow(
          spec("passthrough", FieldType::String, "\"\"", 0, 0, "",
               "PCI address of an NVMe controller (\"0000:03:00.0\", as lspci -D shows it) to give "
               "the guest itself through vfio-pci, instead of a disk storbed makes. Targets nvme "
               "(the device) and bare-metal (its first namespace, run before the handover); needs "
               "storbed run --allow-pci ADDR and passes the safety checks of docs/passthrough.md. "
               "Write jobs need allow_writes.")),
      Bind(spec("format", FieldType::Enum, "\"raw\"", 0, 0, "",
                "Image format of the backing storbed creates: qcow2 is converted from the "
                "filled raw file (qemu-img convert), so every cluster holds data. Bare metal "
                "reads the raw file.",
                std::vector<std::string>{"raw", "qcow2"}),
           &D::format),
      Bind(spec("driver", FieldType::Enum, "\"file\"", 0, 0, "",
                "QEMU's protocol driver: file (the backing), or null-co (no storage: QEMU "
                "completes each request after null_latency, so only the virtual path is "
                "measured; guest targets only).",
                ScenarioDiskDrivers()),
           &D::driver),
      Bind(spec("null_latency", FieldType::Duration, "0", 0, 1e9, "",
                "driver null-co: time QEMU waits before completing each request (\"50us\", "
                "\"1ms\")."),
           &D::null_latency_ns),
      FilesystemRow(
          spec("filesystem", FieldType::Enum, "\"none\"", 0, 0, "",
               "none: jobs run on the block device. ext4 or xfs: storbed makes an image of "
               "max(disk.size, what the filesystem needs; xfs at least 300 MiB) holding a filled "
               "test file, and jobs run on that file (guests mount it at /mnt/storbed/<dev>, bare "
               "metal on a loop device in the work directory).",
               std::vector<std::string>{"none", "ext4", "xfs"})),
      Bind(spec("fs_file_size", FieldType::Size, "0", 0, kMaxBytes, "bytes",
                "filesystem ext4 or xfs: size of the test file; 0 = 3/4 of disk.size."),
           &D::fs_file_bytes),
      Bind(spec("num_queues", FieldType::Integer, "1", 1, 64, "",
                "virtio-blk and virtio-scsi queues (num-queues); NVMe max_ioqpairs."),
           &D::num_queues),
      Bind(spec("queue_size", FieldType::Integer, "256", 4, 1024, "",
                "virtio-blk and virtio-scsi queue-size (a power of two; QEMU refuses 2)."),
           &D::queue_size),
      Bind(spec("iothread", FieldType::Bool, "false", 0, 0, "",
                "Give the virtio-blk disk or the virtio-scsi controller its own QEMU iothread."),
           &D::iothread),
      BindEnum(spec("aio", FieldType::Enum, "\"threads\"", 0, 0, "",
                    "QEMU's host IO method for the backing (native needs cache none)."),
               &D::aio, ParseAio),
      BindEnum(spec("cache", FieldType::Enum, "\"none\"", 0, 0, "",
                    "QEMU cache mode: none = O_DIRECT on the host, writeback = host page cache."),
               &D::cache, ParseCacheMode),
      Bind(spec("no_flush", FieldType::Bool, "false", 0, 0, "",
                "cache.no-flush=on: QEMU acknowledges guest flushes without passing them on "
                "(nothing is durable; the durability check shows it)."),
           &D::no_flush),
      Bind(spec("request_merging", FieldType::Bool, "true", 0, 0, "",
                "virtio-blk request-merging in QEMU (merges adjacent guest requests before "
                "submission)."),
           &D::request_merging),
  };
}

// The job section: the job rows a scenario holds, and `invalidate`, fio's bool for cache
// cold or keep (not a member of its own: BuildJob turns it into JobSpec::cache).
std::vector<FieldSpec> JobSection() {
  std::vector<FieldSpec> out;
  for (const auto& row : JobRows()) {
    if (!row.spec.in_scenario) continue;
    if (&row == &JobRow(&JobSpec::cache))
      out.push_back(Spec("job", "invalidate", FieldType::Bool, "true", 0, 0, "",
                         "Cold start before the job (timed separately): fio's bool for cache "
                         "cold (true) or keep (false)."));
    out.push_back(row.spec);
  }
  return out;
}

std::vector<FieldSpec> MakeFields() {
  std::vector<FieldSpec> fields = TopLevel();
  for (const auto& r : MachineRows()) fields.push_back(r.spec);
  for (const auto& r : DiskRows()) fields.push_back(r.spec);
  for (auto& f : JobSection()) fields.push_back(std::move(f));
  return fields;
}

}  // namespace

const std::vector<FieldRow<MachineConfig>>& MachineRows() {
  static const auto kRows = MakeMachineRows();
  return kRows;
}

const std::vector<FieldRow<DiskConfig>>& DiskRows() {
  static const auto kRows = MakeDiskRows();
  return kRows;
}

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

std::string FormatSizeValue(uint64_t n) {
  static const char* const kSuffix[] = {"", "k", "m", "g", "t"};
  int i = 0;
  while (i < 4 && n >= 1024 && n % 1024 == 0) n /= 1024, ++i;
  return std::to_string(n) + kSuffix[i];
}

std::string FormatFieldValue(const FieldSpec& f, double v) {
  // Past 2^64 the cast is undefined (it gave 0): such a size prints as 2^64-1's digits.
  if (f.type == FieldType::Size)
    return FormatSizeValue(v >= 0x1p64 ? UINT64_MAX : static_cast<uint64_t>(v));
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
  for (const auto& [unit, scale] : kUnits) {
    if (s.substr(i) != unit) continue;
    // "18446744074s" in ns wrapped past 2^64 to 0.29 s and was accepted as that.
    if (n > UINT64_MAX / scale)
      throw std::invalid_argument("\"" + s + "\" is more than 2^64 nanoseconds");
    return n * scale;
  }
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

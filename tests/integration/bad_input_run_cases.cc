// The bad-input table's rows about what `storbed run` reads: scenario files, fio job
// files, inventories and the host paths they name.
#include "bad_input_cases.h"

namespace storbed::testing {
namespace {

using Kind = InputFile::Kind;

const std::vector<std::string> kDryRun = {"storbed", "run", "$D/s.json", "--dry-run",
                                          "--work-dir", "$D/work"};

// A scenario file refused by `storbed run --dry-run` (and the real run) with
// "$D/s.json: <message>".
BadInput Scenario(std::string name, std::string text, std::string message) {
  return {std::move(name), {{"s.json", std::move(text)}}, kDryRun, "storbed: $D/s.json: " + message};
}

// A bare-metal scenario whose one job holds `fields` (JSON members), refused with
// "$D/s.json: jobs[0].<message>".
BadInput Job(std::string name, const std::string& fields, std::string message) {
  return Scenario(std::move(name),
                  R"({"name": "s", "targets": ["bare-metal"], "disk": {"size": "16m"},
                      "jobs": [{"name": "j", )" + fields + "}]}",
                  "jobs[0]." + message);
}

// A bare-metal scenario whose one job is named `job_name` (JSON text, quoted).
BadInput JobNamed(std::string name, const std::string& job_name, std::string message) {
  return Scenario(std::move(name),
                  R"({"name": "s", "targets": ["bare-metal"], "jobs": [{"name": )" + job_name +
                      "}]}",
                  "jobs[0].name: " + message);
}

// A guest scenario (virtio-blk) with `machine` and `disk` sections as given.
std::string GuestScenario(const std::string& machine, const std::string& disk) {
  return R"({"name": "s", "targets": ["virtio-blk"], "machine": {)" + machine +
         R"(}, "disk": {)" + disk + R"(}, "jobs": [{"name": "j"}]})";
}

// A fio job file refused by `storbed run --fio` with "$D/job.fio: <message>".
BadInput Fio(std::string name, std::string text, std::string message) {
  return {std::move(name),
          {{"job.fio", std::move(text)}},
          {"storbed", "run", "--fio", "$D/job.fio", "--target", "virtio-blk", "--dry-run",
           "--work-dir", "$D/work"},
          "storbed: $D/job.fio" + message};
}

// An inventory refused with "$D/hosts.json: <message>".
BadInput Inventory(std::string name, std::string text, std::string message) {
  return {std::move(name),
          {{"s.json", kGoodScenario}, {"hosts.json", std::move(text)}},
          {"storbed", "run", "$D/s.json", "--inventory", "$D/hosts.json", "--dry-run",
           "--work-dir", "$D/work"},
          "storbed: $D/hosts.json: " + message};
}

const char* kNameRule =
    " may hold only letters, digits, '.', '_' and '-', beginning with a letter or digit (it "
    "names files, run ids and guests)";

std::vector<BadInput> ScenarioSyntax() {
  return {
      Scenario("ScenarioSyntaxErrorNamesLineAndColumn", "{\"name\": \"s\",\n  \"jobs\": [}\n",
               "not valid JSON: parse error at line 2, column 12: syntax error while parsing "
               "value - unexpected '}'; expected '[', '{', or a literal"),
      Scenario("ScenarioEmptyFile", "",
               "not valid JSON: parse error at line 1, column 1: syntax error while parsing "
               "value - unexpected end of input; expected '[', '{', or a literal"),
      Scenario("ScenarioTopLevelList", "[]", "(top level): must be a JSON object"),
      // Issue 38: 100k levels took memory quadratic in the depth before the bound.
      Scenario("ScenarioNestedDeeperThan64Levels",
               R"({"name": "s", "jobs": )" + Repeated(100000, '[') + Repeated(100000, ']') + "}",
               "not valid JSON: arrays and objects nest deeper than 64 levels (at byte 86)"),
      Scenario("ScenarioDuplicateTopLevelKey",
               R"({"name": "a", "name": "b", "jobs": [{"name": "j"}]})",
               "key \"name\" appears twice in one object (in the top level)"),
      Scenario("ScenarioDuplicateJobKey",
               R"({"name": "s", "jobs": [{"name": "j", "bs": "4k", "bs": "8k"}]})",
               "key \"bs\" appears twice in one object (in jobs[0])"),
      Scenario("ScenarioNameIsANumber", R"({"name": 5, "jobs": [{"name": "j"}]})",
               "name: expected a string, got 5"),
      Scenario("ScenarioNameMissing", R"({"jobs": [{"name": "j"}]})",
               "name: required field is missing"),
      Scenario("ScenarioJobsMissing", R"({"name": "s"})",
               "jobs: required: a non-empty list of job objects"),
      Scenario("ScenarioJobsEmpty", R"({"name": "s", "jobs": []})",
               "jobs: required: a non-empty list of job objects"),
      Scenario("ScenarioJobIsANumber", R"({"name": "s", "jobs": [3]})",
               "jobs[0]: must be a JSON object"),
      Scenario("ScenarioUnknownTopLevelField",
               R"({"name": "s", "nmae": "t", "jobs": [{"name": "j"}]})",
               "nmae: unknown field (known: name, description, targets, matrix_exclude, repeats, "
               "warmup, order, order_seed, reboot)"),
      Scenario("ScenarioMachineIsAList", R"({"name": "s", "machine": [], "jobs": [{"name": "j"}]})",
               "machine: must be a JSON object"),
  };
}

std::vector<BadInput> ScenarioNames() {
  return {
      Scenario("ScenarioNameWithASpace", R"({"name": "my suite", "jobs": [{"name": "j"}]})",
               std::string("name: \"my suite\"") + kNameRule),
      Scenario("ScenarioNameDotDot", R"({"name": "..", "jobs": [{"name": "j"}]})",
               std::string("name: \"..\"") + kNameRule),
      Scenario("ScenarioNameClimbingOut", R"({"name": "../../tmp/x", "jobs": [{"name": "j"}]})",
               std::string("name: \"../../tmp/x\"") + kNameRule),
      Scenario("ScenarioNameWithAnEscapeSequenceIsPrintedEscaped",
               R"({"name": "a\u001b[2Jb", "jobs": [{"name": "j"}]})",
               std::string("name: \"a\\u001b[2Jb\"") + kNameRule),
      Scenario("ScenarioNameWithANewlineIsPrintedEscaped",
               R"({"name": "a\nb", "jobs": [{"name": "j"}]})",
               std::string("name: \"a\\nb\"") + kNameRule),
      Scenario("ScenarioNameNonAscii", R"({"name": "café", "jobs": [{"name": "j"}]})",
               std::string("name: \"caf\\u00e9\"") + kNameRule),
      Scenario("ScenarioName300Characters",
               R"({"name": ")" + std::string(300, 'n') + R"(", "jobs": [{"name": "j"}]})",
               "name: is 300 characters long; names are at most 64"),
      Scenario("ScenarioNameEmpty", R"({"name": "", "jobs": [{"name": "j"}]})",
               "name: must not be empty"),
      JobNamed("JobNameWithASlash", R"("a/b")", std::string("\"a/b\"") + kNameRule),
      JobNamed("JobNameClimbingOut", R"("../../../tmp/evil")",
               std::string("\"../../../tmp/evil\"") + kNameRule),
      JobNamed("JobNameWithABellIsPrintedEscaped", R"("x\u0007")",
               std::string("\"x\\u0007\"") + kNameRule),
      JobNamed("JobName300Characters", "\"" + std::string(300, 'j') + "\"",
               "is 300 characters long; names are at most 64"),
      Scenario("JobNameUsedTwice",
               R"({"name": "s", "targets": ["bare-metal"], "jobs": [{"name": "j"}, {"name": "j"}]})",
               "jobs[1].name: job name \"j\" is used twice"),
  };
}

std::vector<BadInput> JobValues() {
  return {
      Job("BsWithUnknownSuffix", R"("bs": "16q")",
          "bs: unknown size suffix 'q' in \"16q\" (use k, m, g or t; powers of 1024)"),
      Job("BsNegative", R"("bs": -1)", "bs: a size cannot be negative"),
      Job("BsNegativeString", R"("bs": "-1")",
          "bs: expected a size like 4096, \"4k\" or \"64m\", got \"-1\""),
      Job("BsZero", R"("bs": "0")", "bs: value 0 is out of range [512, 64m]"),
      Job("BsNotAMultipleOf512", R"("bs": 1000)", "bs: must be a multiple of 512, got 1000"),
      Job("BsAboveTheRegion", R"("bs": "64k", "size": "32k")",
          "bs: block size is larger than the job's region"),
      Job("IodepthHuge", R"("iodepth": 100000)", "iodepth: value 100000 is out of range [1, 4096]"),
      Job("IodepthAString", R"("iodepth": "8")", "iodepth: expected a non-negative integer, got \"8\""),
      Job("RuntimeNegative", R"("runtime": -5)", "runtime: value -5 is out of range [0, 86400] s"),
      Job("RuntimeAString", R"("runtime": "10s")", "runtime: expected a number, got \"10s\""),
      Job("UnknownEngine", R"("ioengine": "spdk")",
          "ioengine: expected one of psync, io_uring, libaio, mmap, pvsync2, pvsync2_hipri, "
          "pvsync2_nowait, got \"spdk\""),
      Job("UnknownPattern", R"("pattern": "zigzag")",
          "pattern: expected one of sequential, random, gappy, strided, got \"zigzag\""),
      Job("UnknownJobField", R"("blocksize": "4k")", "blocksize: unknown field (known: name, pattern, rw, rwmixread, stride, "
          "random_distribution, zipf_theta, hot_fraction, hot_pct, ioengine, bs, iodepth, reap, "
          "submit_batch, "
          "numjobs, numjobs_split, size, io_size, runtime, direct, huge_buffers, invalidate, cache, "
          "cached_fraction, loops, invalidate_each_pass, invalidate_in_runtime, "
          "fadvise_hint, madvise_hint, mmap_window, verify, read_ahead_kb, "
          "scheduler, nr_requests, max_sectors_kb, gappy_read, gappy_skip, random_run, fsync, end_fsync, "
          "inflight_sample_ms, stats_sample_ms, trace, trace_detail, seed)"),
      Job("DirectAsAString", R"("direct": "yes")", "direct: expected true or false, got \"yes\""),
      Job("NumjobsZero", R"("numjobs": 0)", "numjobs: value 0 is out of range [1, 64]"),
      Job("IoSizeBelowOneBlock", R"("bs": "64k", "io_size": "4k")",
          "io_size: 4096 bytes is less than one block (bs 65536 bytes): the job would do no IO"),
      Job("SizeAboveTheDisk", R"("size": "32m")",
          "size: job region (33554432 bytes) is larger than disk.size (16777216 bytes)"),
      Job("ListForBsIsEmpty", R"("bs": [])", "bs: an empty list gives no runs"),
      Job("MmapWithDirect", R"("ioengine": "mmap")",
          "ioengine: mmap reads go through the page cache: set direct false"),
      Job("TraceBuffered", R"("trace": true, "direct": false)",
          "trace: buffered IO reaches the block layer as page-cache readahead and writeback, "
          "not one request per IO: set direct true"),
      Job("TraceDetailUntraced", R"("trace_detail": true)",
          "trace_detail: applies to traced jobs only: set trace true"),
  };
}

std::vector<BadInput> MachineAndDisk() {
  return {
      Scenario("UnknownBus", R"({"name": "s", "targets": ["sata"], "jobs": [{"name": "j"}]})",
               "targets: expected targets from virtio-blk, nvme, virtio-scsi, ahci, bare-metal, "
               "got \"sata\""),
      Scenario("TargetsEmpty", R"({"name": "s", "targets": [], "jobs": [{"name": "j"}]})",
               "targets: expected a non-empty list of targets"),
      Scenario("TargetListedTwice",
               R"({"name": "s", "targets": ["nvme", "nvme"], "jobs": [{"name": "j"}]})",
               "targets: target \"nvme\" is listed twice"),
      Scenario("UnknownCacheMode", GuestScenario("", R"("cache": "unsafe")"),
               "disk.cache: expected one of none, writeback, got \"unsafe\""),
      Scenario("UnknownDiskDriver", GuestScenario("", R"("driver": "nbd")"),
               "disk.driver: expected one of file, null-co, got \"nbd\""),
      Scenario("DiskSizeUnknownSuffix", GuestScenario("", R"("size": "16q")"),
               "disk.size: unknown size suffix 'q' in \"16q\" (use k, m, g or t; powers of 1024)"),
      Scenario("DiskSizeZero", GuestScenario("", R"("size": "0")"),
               "disk.size: value 0 is out of range [1m, 16t]"),
      Scenario("DiskSizeAbove16t", GuestScenario("", R"("size": "17t")"),
               "disk.size: value 17t is out of range [1m, 16t]"),
      // Regression: 16777217t << 40 wrapped past 2^64 to 1t, and a 1t disk was planned.
      Scenario("DiskSizeAbove2To64Bytes", GuestScenario("", R"("size": "16777217t")"),
               "disk.size: \"16777217t\" is more than 2^64 bytes"),
      // Regression: 18446744074 s in ns wrapped to 0.29 s, and the dry run said valid.
      Scenario("NullLatencyAbove2To64Nanoseconds",
               GuestScenario("", R"("driver": "null-co", "null_latency": "18446744074s")"),
               "disk.null_latency: \"18446744074s\" is more than 2^64 nanoseconds"),
      // Regression: nlohmann's out_of_range escaped the parser: exit 1, no file named.
      Scenario("RuntimeBeyondADouble",
               R"({"name": "s", "targets": ["bare-metal"], "jobs": [{"name": "j", "runtime": 1e400}]})",
               "not valid JSON: number overflow parsing '1e400'"),
      Scenario("QueueSizeNotAPowerOfTwo", GuestScenario("", R"("queue_size": 100)"),
               "disk.queue_size: must be a power of two, got 100"),
      Scenario("AioNativeWithWriteback", GuestScenario("", R"("aio": "native", "cache": "writeback")"),
               "disk.aio: \"native\" needs cache \"none\" (QEMU requires O_DIRECT for it)"),
      Scenario("MemoryBelowTheMinimum", GuestScenario(R"("memory": "64m")", ""),
               "machine.memory: value 64m is out of range [128m, 64g]"),
      Scenario("VcpusZero", GuestScenario(R"("vcpus": 0)", ""),
               "machine.vcpus: value 0 is out of range [1, 64]"),
      Scenario("AccelAsAList", GuestScenario(R"("accel": ["kvm", "tcg"])", ""),
               "machine.accel: takes one value, not a list"),
      Scenario("UnknownMachineField", GuestScenario(R"("cpus": 2)", ""),
               "machine.cpus: unknown field (known: vcpus, memory, kernel, modules_dir, image, "
               "initrd, append, agent_push, accel, sample_period_ms, virtqueue_sample_ms, "
               "boot_timeout, "
               "read_ahead_kb, scheduler, nr_requests, max_sectors_kb)"),
      Scenario("FsFileLargerThanTheDisk",
               GuestScenario("", R"("size": "16m", "filesystem": "ext4", "fs_file_size": "32m")"),
               "disk.fs_file_size: the test file (33554432 bytes) is larger than disk.size "
               "(16777216 bytes)"),
      Scenario("NullCoOnBareMetal",
               R"({"name": "s", "targets": ["bare-metal"], "disk": {"driver": "null-co"},
                   "jobs": [{"name": "j"}]})",
               "disk.driver: \"null-co\" has no storage for the bare-metal target: drop "
               "\"bare-metal\" from targets, or exclude {\"target\": \"bare-metal\", "
               "\"disk.driver\": \"null-co\"}"),
      Scenario("RepeatsZero", R"({"name": "s", "repeats": 0, "jobs": [{"name": "j"}]})",
               "repeats: value 0 is out of range [1, 1000]"),
      Scenario("UnknownOrder", R"({"name": "s", "order": "shuffle", "jobs": [{"name": "j"}]})",
               "order: expected one of sequential, random, interleaved, got \"shuffle\""),
  };
}

std::vector<BadInput> Matrices() {
  return {
      Scenario("MatrixExcludeNamesAnUnknownParameter",
               R"({"name": "s", "targets": ["bare-metal"], "matrix_exclude": [{"job.bss": "4k"}],
                   "jobs": [{"name": "j", "bs": ["4k", "8k"]}]})",
               "matrix_exclude[0].job.bss: no machine, disk or job field is named 'job.bss'"),
      Scenario("MatrixExcludeDropsEveryJob",
               R"({"name": "s", "targets": ["bare-metal"], "matrix_exclude": [{"job.bs": "4k"}],
                   "jobs": [{"name": "j", "bs": ["4k"]}]})",
               "matrix_exclude: drops every job combination"),
      // Regression: about 2.4M combinations ended in std::bad_alloc after 6.2 GB.
      Scenario("MatrixOfMillionsIsRefusedBeforeItIsExpanded",
               R"({"name": "s", "targets": ["bare-metal"], "repeats": 1000,
                   "jobs": [{"name": "j", "bs": ["4k", "8k", "16k", "32k", "64k", "128k", "256k",
                                                "512k", "1m", "2m", "4m"],
                             "iodepth": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
                             "numjobs": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                         17]}]})",
               "(matrix): expands to 2431000 runs, more than the limit of 10000; narrow the "
               "lists, or raise the limit with --max-runs"),
      {"MatrixAboveMaxRuns",
       {{"s.json", R"({"name": "s", "targets": ["bare-metal"], "disk": {"size": "16m"},
                      "jobs": [{"name": "j", "bs": ["4k", "8k", "16k"]}]})"}},
       {"storbed", "run", "$D/s.json", "--dry-run", "--work-dir", "$D/work", "--max-runs", "2"},
       "storbed: $D/s.json: (matrix): expands to 3 runs, more than the limit of 2; narrow the "
       "lists, or raise the limit with --max-runs"},
  };
}

std::vector<BadInput> HostPaths() {
  return {
      Scenario("KernelMissing", GuestScenario(R"("kernel": "$D/vmlinuz")", ""),
               "machine.kernel: $D/vmlinuz cannot be read: No such file or directory"),
      Scenario("KernelIsNotABzImage",
               GuestScenario(R"("kernel": "/etc/passwd", "modules_dir": "/lib/modules")", ""),
               "machine.kernel: /etc/passwd is not a bzImage (no x86 boot header: 0xAA55 at "
               "0x1FE and \"HdrS\" at 0x202)"),
      Scenario("ForeignImageMissing",
               GuestScenario(R"("image": "$D/debian12.qcow2", "kernel": "disk")", ""),
               "machine.image: $D/debian12.qcow2 cannot be read (No such file or directory)"),
      Scenario("ForeignImageWithTheHostKernel", GuestScenario(R"("image": "/etc/passwd")", ""),
               "machine.kernel: a foreign image boots its own kernel: name it "
               "(scripts/make-debian-image.sh puts vmlinuz, initrd.img and append beside the "
               "image) or \"disk\" for the image's own bootloader"),
      Scenario("AppendWithoutForeignImage", GuestScenario(R"("append": "root=/dev/vda")", ""),
               "machine.append: is only for a foreign image (machine.image)"),
      Scenario("ModulesDirMissing", GuestScenario(R"("modules_dir": "$D/modules")", ""),
               "machine.modules_dir: $D/modules does not exist"),
      Scenario("ModulesDirIsAFile", GuestScenario(R"("modules_dir": "/etc/passwd")", ""),
               "machine.modules_dir: /etc/passwd is not a directory"),
      {"BackingIsADirectory",
       {{"s.json", GuestScenario("", R"("backing": "$D/dir")")}, {"dir", "", Kind::Dir}},
       kDryRun,
       "storbed: $D/s.json: disk.backing: $D/dir is a directory; a backing must be a regular file "
       "or a block device"},
      {"BackingIsAFifo",
       {{"s.json", GuestScenario("", R"("backing": "$D/fifo")")}, {"fifo", "", Kind::Fifo}},
       kDryRun,
       "storbed: $D/s.json: disk.backing: $D/fifo is a FIFO; a backing must be a regular file or a "
       "block device"},
      Scenario("KernelPathWithAnEscape", GuestScenario(R"("kernel": "$D/vm\u001b[2Jlinuz")", ""),
               "machine.kernel: \"$D/vm\\u001b[2Jlinuz\" holds a control character"),
      Scenario("ModulesDirWithANewline", GuestScenario(R"("modules_dir": "$D/mod\nules")", ""),
               "machine.modules_dir: \"$D/mod\\nules\" holds a control character"),
      Scenario("BackingPathWithAnEscape", GuestScenario("", R"("backing": "$D/b\u001b[2J.raw")"),
               "disk.backing: \"$D/b\\u001b[2J.raw\" holds a control character"),
      Scenario("BackingPathWithAC1Control", GuestScenario("", R"("backing": "$D/b\u009b2J.raw")"),
               "disk.backing: \"$D/b\\u009b2J.raw\" holds a control character"),
      Job("SchedulerWithAnEscape", R"("scheduler": "mq\u001b[2J")",
          "scheduler: \"mq\\u001b[2J\" holds a control character"),
      Scenario("DescriptionWithAnEscape",
               R"({"name": "s", "description": "x\u001b[2J", "jobs": [{"name": "j"}]})",
               "description: \"x\\u001b[2J\" holds a control character"),
      Scenario("MachineSchedulerWithASlash", GuestScenario(R"("scheduler": "../none")", ""),
               "machine.scheduler: \"../none\" is not an IO scheduler name (lowercase letters, "
               "digits, '-' and '_', as in /sys/block/<disk>/queue/scheduler: none, "
               "mq-deadline, bfq, kyber)"),
      Job("SchedulerWithASpace", R"("scheduler": "mq deadline")",
          "scheduler: \"mq deadline\" is not an IO scheduler name (lowercase letters, digits, "
          "'-' and '_', as in /sys/block/<disk>/queue/scheduler: none, mq-deadline, bfq, kyber)"),
      Scenario("BackingMissing", GuestScenario("", R"("backing": "$D/none.raw")"),
               "disk.backing: $D/none.raw does not exist"),
      {"BackingIsEmpty",
       {{"s.json", GuestScenario("", R"("backing": "$D/empty.raw")")}, {"empty.raw", ""}},
       kDryRun,
       "storbed: $D/s.json: disk.backing: $D/empty.raw is empty"},
      {"AllowWritesOnAFileBacking",
       {{"s.json", GuestScenario("", R"("backing": "$D/b.raw", "allow_writes": true)")},
        {"b.raw", Repeated(1 << 20, 'b')}},
       kDryRun,
       "storbed: $D/s.json: disk.allow_writes: applies to a block device named in "
       "disk.backing only"},
      Scenario("WriteJobOnANamedDeviceWithoutAllowWrites",
               R"({"name": "s", "targets": ["bare-metal"], "disk": {"backing": "/dev/sdz9"},
                   "jobs": [{"name": "j", "rw": "write"}]})",
               "jobs[0].rw: \"write\" would overwrite the block device /dev/sdz9 named in "
               "disk.backing; set disk.allow_writes true if that is meant"),
      {"ScenarioIsADirectory",
       {{"s.json", "", Kind::Dir}},
       kDryRun,
       "storbed: $D/s.json: the scenario file is a directory, not a regular file"},
      {"ScenarioIsMissing",
       {},
       kDryRun,
       "storbed: $D/s.json: the scenario file cannot be opened: No such file or directory"},
  };
}

std::vector<BadInput> FioFiles() {
  return {
      Fio("FioUnsupportedOption", "[j]\nrw=read\nzonemode=zbd\n",
          ":3: option 'zonemode' is not supported by storbed"),
      Fio("FioBadBs", "[j]\nbs=4q\n",
          ":2: option 'bs': unknown size suffix 'q' in \"4q\" (use k, m, g or t; "
          "powers of 1024)"),
      Fio("FioSectionNameWithASlash", "[a/b]\nrw=read\n",
          std::string(":1: [\"a/b\"]: section name \"a/b\"") + kNameRule),
      Fio("FioSectionNameWithAnEscape", "[a\x1b[2Jb]\nrw=read\n",
          std::string(":1: [\"a\\u001b[2Jb\"]: section name \"a\\u001b[2Jb\"") + kNameRule),
      // Regression: the file's own words were quoted raw ('sp<ESC>[2Jdk').
      Fio("FioEngineWithAnEscape", "[j]\nioengine=sp\x1b[2Jdk\n",
          ":2: option 'ioengine': 'sp\\u001b[2Jdk' is not supported by storbed (psync, io_uring, "
          "libaio, mmap, pvsync2, pvsync2_hipri, pvsync2_nowait)"),
      Fio("FioOptionNameWithAnEscape", "[j]\nzone\x1bmode=zbd\n",
          ":2: option 'zone\\u001bmode' is not supported by storbed"),
      Fio("FioBsWithABell", "[j]\nbs=4\ak\n",
          ":2: option 'bs': unknown size suffix '\\u0007k' in \"4\\u0007k\" (use k, m, g or t; "
          "powers of 1024)"),
      Fio("FioSectionNameClimbingOut", "[../../../tmp/evil]\nrw=read\n",
          std::string(":1: [\"../../../tmp/evil\"]: section name \"../../../tmp/evil\"") +
              kNameRule),
      Fio("FioSectionName300Characters", "[" + std::string(300, 'f') + "]\nrw=read\n",
          std::string(":1: [\"") + std::string(256, 'f') +
              "\"... (300 bytes)]: section name is 300 characters long; names are at most 64"),
      Fio("FioIodepthPast2To64", "[j]\niodepth=99999999999999999999\n",
          ":2: option 'iodepth': expected a whole number, got '99999999999999999999'"),
      Fio("FioIodepthNegative", "[j]\niodepth=-1\n",
          ": jobs[0].iodepth: expected a non-negative integer, got -1"),
      Fio("FioSizePast2To64Bytes", "[j]\nsize=16777217t\n",
          ":2: option 'size': \"16777217t\" is more than 2^64 bytes"),
      Fio("FioRuntimeBeyondADouble", "[j]\nruntime=1e400\n",
          ":2: option 'runtime': expected seconds like 10 or 10s, got '1e400'"),
      Fio("FioUnknownEngine", "[j]\nioengine=spdk\n",
          ":2: option 'ioengine': 'spdk' is not supported by storbed (psync, io_uring, "
          "libaio, mmap, pvsync2, pvsync2_hipri, pvsync2_nowait)"),
      Fio("FioTrim", "[j]\nrw=trim\n",
          ":2: option 'rw': 'trim' is not supported by storbed (read, write, randread, "
          "randwrite, rw, readwrite, randrw)"),
      Fio("FioNoJobSections", "[global]\nbs=4k\n", ": no job sections (only [global] or nothing)"),
      Fio("FioHeaderWithoutClosingBracket", "[j\nrw=read\n",
          ":1: section header '[j' has no closing ']'; $D/job.fio:2: option "
          "'rw=read' comes before any [section]"),
      Fio("FioOptionBeforeAnySection", "bs=4k\n[j]\n",
          ":1: option 'bs=4k' comes before any [section]"),
      {"FioFileIsAFifo",
       {{"job.fio", "", Kind::Fifo}},
       {"storbed", "run", "--fio", "$D/job.fio", "--dry-run", "--work-dir", "$D/work"},
       "storbed: $D/job.fio: the fio job file is a FIFO, not a regular file"},
      // Regression: --max-runs was not passed to the fio import (6 runs went through).
      {"FioAboveMaxRuns",
       {{"job.fio", "[a]\nrw=read\n[b]\nrw=read\n"}},
       {"storbed", "run", "--fio", "$D/job.fio", "--dry-run", "--work-dir", "$D/work", "--max-runs",
        "2"},
       "storbed: $D/job.fio: (matrix): expands to 6 runs, more than the limit of 2; narrow the "
       "lists, or raise the limit with --max-runs"},
      {"FioUnknownTarget",
       {{"job.fio", "[j]\nrw=read\n"}},
       {"storbed", "run", "--fio", "$D/job.fio", "--target", "virtio-blk,floppy", "--dry-run",
        "--work-dir", "$D/work"},
       "storbed: --target: 'floppy' is not a target (virtio-blk, nvme, virtio-scsi, ahci, "
       "bare-metal)"},
  };
}

std::vector<BadInput> Inventories() {
  return {
      Inventory("InventoryMaxGuestsZero",
                R"({"hosts": [{"name": "h", "uri": "qemu:///system", "max_guests": 0}]})",
                "hosts[0].max_guests: expected an integer from 1 to 256, got 0"),
      Inventory("InventoryMaxGuests257",
                R"({"hosts": [{"name": "h", "uri": "qemu:///system", "max_guests": 257}]})",
                "hosts[0].max_guests: expected an integer from 1 to 256, got 257"),
      Inventory("InventoryMaxGuests2To32",
                R"({"hosts": [{"name": "h", "uri": "qemu:///system", "max_guests": 4294967296}]})",
                "hosts[0].max_guests: expected an integer from 1 to 256, got 4294967296"),
      Inventory("InventoryHostWithoutUri", R"({"hosts": [{"name": "h"}]})",
                "hosts[0].uri: required field is missing"),
      Inventory("InventoryHostUnknownField",
                R"({"hosts": [{"name": "h", "uri": "qemu:///system", "address": "x"}]})",
                "hosts[0].address: unknown field (known: name, uri, max_guests, labels, pool_dir)"),
      Inventory("InventoryHostNameWithASlash", R"({"hosts": [{"name": "a/b", "uri": "qemu:///system"}]})",
                std::string("hosts[0].name: \"a/b\"") + kNameRule),
      Inventory("InventoryHostsEmpty", R"({"hosts": []})",
                "hosts: expected a non-empty list of hosts"),
      Inventory("InventoryRelativePoolDir",
                R"({"hosts": [{"name": "h", "uri": "qemu:///system", "pool_dir": "pool"}]})",
                "hosts[0].pool_dir: must be an absolute path on that host, got \"pool\""),
  };
}

// Issue 38: each of these passed `--dry-run` (or was accepted, or quoted a value whole or cut
// at a NUL) before the shared checks learned it.
std::vector<BadInput> Bounds() {
  const std::string five_mb = Repeated(5000000, 'x');
  return {
      // Regression: "expected a non-negative integer, got 18446744073709551615".
      Job("Iodepth2To64Minus1", R"("iodepth": 18446744073709551615)",
          "iodepth: value 18446744073709551615 is out of range [1, 4096]"),
      // Regression: "value 0 is out of range": the double 2^64 cast back to 0.
      Job("Bs2To64Minus1IsNotReportedAsZero", R"("bs": 18446744073709551615)",
          "bs: value 18446744073709551615 is out of range [512, 64m]"),
      // Regression: accepted as -1 (leave the disk's read_ahead_kb as it is).
      Job("ReadAheadKb2To64Minus1IsNotMinusOne", R"("read_ahead_kb": 18446744073709551615)",
          "read_ahead_kb: value 18446744073709551615 is out of range [-1, 1048576] KiB"),
      // Regression: "ok" with 0 IOs.
      Job("RuntimeOfANanosecond", R"("runtime": 1e-9)",
          "runtime: 1e-09 s is shorter than 0.01 s, the shortest time limit (0 means none): "
          "the job would end before its first IO and report 0 IOs"),
      // Regression: the message ended at the NUL ("unknown size suffix '").
      Job("BsWithANulByteIsQuotedWhole", R"("bs": "4\u0000zzz")",
          "bs: unknown size suffix '\\u0000zzz' in \"4\\u0000zzz\" (use k, m, g or t; powers of "
          "1024)"),
      // Regression: the 5 MB value was echoed twice (10 MB of stderr).
      Job("FiveMegabyteBsIsQuotedAsAPrefix", R"("bs": "4)" + five_mb + "\"",
          "bs: unknown size suffix in \"4" + std::string(255, 'x') +
              "\"... (5000001 bytes) (use k, m, g or t; powers of 1024)"),
      Job("FiveMegabyteEngineIsQuotedAsAPrefix", R"("ioengine": ")" + five_mb + "\"",
          "ioengine: expected one of psync, io_uring, libaio, mmap, pvsync2, pvsync2_hipri, "
          "pvsync2_nowait, got \"" +
              std::string(256, 'x') + "\"... (5000000 bytes)"),
      Scenario("FiveMegabyteDescriptionIsQuotedAsAPrefix",
               R"({"name": "s", "description": ")" + Repeated(2500000, 'x') + R"(\u001b",
                   "jobs": [{"name": "j"}]})",
               "description: \"" + std::string(256, 'x') +
                   "\"... (2500001 bytes) holds a "
                   "control character"),
      // Regression: the dry run said valid; the run ended "killed by signal 9" or in
      // std::bad_alloc in the guest.
      Scenario("GuestBuffersAboveHalfItsMemory",
               R"({"name": "s", "targets": ["virtio-blk"], "jobs": [{"name": "j", "bs": "64m",
                   "iodepth": 64, "ioengine": "io_uring"}]})",
               "job \"j\" on virtio-blk: bs 64m x iodepth 64 x numjobs 1 = 4g of IO buffers, "
               "more than 50% of machine.memory (1g); the rest is the kernel's and the page "
               "cache's: lower bs, iodepth or numjobs"),
      // Regression: QEMU: "invalid queue-size property (2), must be > 2", after the dry run.
      Scenario("QueueSizeTwoThatQemuRefuses", GuestScenario("", R"("queue_size": 2)"),
               "disk.queue_size: value 2 is out of range [4, 1024]"),
      // Regression: a target exclude left no run; exit 0 with nothing done.
      Scenario(
          "MatrixExcludeDropsEveryTarget",
          R"({"name": "s", "targets": ["bare-metal"], "matrix_exclude": [{"target": "bare-metal"}],
                   "jobs": [{"name": "j"}]})",
          "matrix_exclude: drops every run (each target x machine x job combination)"),
      // Regression: the real run refused the holes after the dry run said valid.
      {"BackingWithHolesForReads",
       {{"s.json", GuestScenario("", R"("backing": "$D/sparse.raw")")},
        {"sparse.raw", "", Kind::Sparse}},
       kDryRun,
       "storbed: $D/s.json: disk.backing: $D/sparse.raw has holes (sparse or never written): "
       "reads of holes never reach the device; fill it with data first (e.g. dd "
       "if=/dev/urandom)"},
      {"JobRegionPastTheBacking",
       {{"s.json", R"({"name": "s", "targets": ["bare-metal"], "disk": {"backing": "$D/b.raw"},
                      "jobs": [{"name": "j", "size": "4m"}]})"},
        {"b.raw", Repeated(1 << 20, 'b')}},
       kDryRun,
       "storbed: $D/s.json: job \"j\": size: the region (offset 0 + size 4194304 bytes) ends "
       "past the end of disk.backing $D/b.raw (1048576 bytes)"},
      // Regression: a link outside /dev escaped the allow_writes rule for block devices.
      {"SymlinkToABlockDeviceWithWrites",
       {{"s.json", R"({"name": "s", "targets": ["bare-metal"], "disk": {"backing": "$D/disk"},
                      "jobs": [{"name": "j", "rw": "write"}]})"},
        {"disk", "/dev/loop0", Kind::Symlink}},
       kDryRun,
       "storbed: $D/s.json: disk.backing: $D/disk is the block device /dev/loop0 and the scenario "
       "has write jobs: name /dev/loop0 in disk.backing and set disk.allow_writes true if "
       "overwriting it is meant"},
      // Regression: the run's records reached the history only at its end, and failed there.
      {"HistoryIsADirectory",
       {{"s.json", kGoodScenario}, {"hdb", "", Kind::Dir}},
       {"storbed", "run", "$D/s.json", "--dry-run", "--work-dir", "$D/work", "--history", "$D/hdb"},
       "storbed: --history $D/hdb: is a directory, not a history database file"},
      {"HistoryInADirectoryThatDoesNotExist",
       {{"s.json", kGoodScenario}},
       {"storbed", "run", "$D/s.json", "--dry-run", "--work-dir", "$D/work", "--history",
        "$D/none/h.db"},
       "storbed: --history $D/none/h.db: its directory $D/none does not exist"},
      // A fio file's values are cut alike.
      Fio("FioFiveMegabyteEngineIsQuotedAsAPrefix", "[j]\nioengine=" + five_mb + "\n",
          ":2: option 'ioengine': '" + std::string(256, 'x') +
              "... (5000000 bytes)' is not supported by storbed (psync, io_uring, libaio, mmap, "
              "pvsync2, pvsync2_hipri, pvsync2_nowait)"),
  };
}

}  // namespace

std::vector<BadInput> RunInputCases() {
  std::vector<BadInput> all;
  for (auto group : {ScenarioSyntax(), ScenarioNames(), JobValues(), MachineAndDisk(), Matrices(),
                     HostPaths(), FioFiles(), Inventories(), Bounds()})
    for (auto& c : group) all.push_back(std::move(c));
  return all;
}

}  // namespace storbed::testing

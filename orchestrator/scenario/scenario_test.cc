#include "scenario/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "images/filesystem_image.h"
#include "test_paths.h"

namespace storbed {
namespace scenario_test {  // named, not anonymous: a unity build joins files

const char* kMinimal = R"({"name": "t", "jobs": [{"name": "a"}]})";

TEST(ScenarioTest, MinimalScenarioGetsDefaults) {
  const Scenario s = ParseScenario(kMinimal, "t.json");
  EXPECT_EQ(s.name, "t");
  ASSERT_EQ(s.targets.size(), 3u);
  EXPECT_EQ(s.targets[0], TargetKind{Bus::VirtioBlk});
  EXPECT_EQ(s.targets[2], TargetKind::BareMetal);
  EXPECT_EQ(s.disk.size_bytes, 64ull << 20);
  EXPECT_EQ(s.machine.memory_bytes, 1ull << 30);
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].bs, 4096u);
  EXPECT_EQ(s.jobs[0].pattern, Pattern::Sequential);
  EXPECT_EQ(s.jobs[0].cache, CacheState::Cold);
  EXPECT_EQ(s.expanded["jobs"][0]["iodepth"], 1);
  EXPECT_EQ(s.expanded["disk"]["aio"], "threads");
}

TEST(ScenarioTest, ParsesEveryField) {
  const Scenario s = ParseScenario(R"({
    "name": "full", "description": "d", "targets": ["nvme"],
    "machine": {"vcpus": 4, "memory": "2g", "kernel": "/boot/vmlinuz-x", "modules_dir": "/m",
                "accel": "tcg", "boot_timeout": 60},
    "disk": {"size": "128m", "num_queues": 2, "queue_size": 128, "iothread": true,
             "aio": "native", "cache": "none", "request_merging": false},
    "jobs": [{"name": "g", "pattern": "gappy", "rw": "read", "ioengine": "io_uring",
              "bs": "16k", "iodepth": 32, "size": "32m", "io_size": "8m", "runtime": 1.5,
              "direct": false, "invalidate": false, "gappy_read": 2, "gappy_skip": 5,
              "seed": 7}]})",
                                   "full.json");
  EXPECT_EQ(s.machine.vcpus, 4u);
  EXPECT_EQ(s.machine.memory_bytes, 2ull << 30);
  EXPECT_EQ(s.machine.accel, "tcg");
  EXPECT_EQ(s.disk.aio, Aio::Native);
  EXPECT_TRUE(s.disk.iothread);
  EXPECT_FALSE(s.disk.request_merging);
  const JobSpec& j = s.jobs[0];
  EXPECT_EQ(j.pattern, Pattern::Gappy);
  EXPECT_EQ(j.engine, Engine::IoUring);
  EXPECT_EQ(j.bs, 16384u);
  EXPECT_EQ(j.iodepth, 32u);
  EXPECT_EQ(j.size, 32ull << 20);
  EXPECT_EQ(j.io_limit, 8ull << 20);
  EXPECT_DOUBLE_EQ(j.runtime_s, 1.5);
  EXPECT_FALSE(j.direct);
  EXPECT_EQ(j.cache, CacheState::Keep);
  EXPECT_EQ(j.gappy_read, 2u);
  EXPECT_EQ(j.gappy_skip, 5u);
  EXPECT_EQ(j.seed, 7u);
}

TEST(ScenarioTest, BundledQuickScenarioValidates) {
  const Scenario s = LoadScenario(TestSourceDir() + "/scenarios/quick.json");
  EXPECT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.targets.size(), 3u);
}

TEST(ScenarioTest, BundledBufferedVsDirectRunsOneTwoAndFourThreads) {
  const Scenario s = LoadScenario(TestSourceDir() + "/scenarios/buffered-vs-direct.json");
  std::vector<uint32_t> numjobs;
  for (const JobSpec& j : s.jobs)
    if (j.name.rfind("read", 0) == 0 && j.direct) numjobs.push_back(j.numjobs);
  EXPECT_EQ(numjobs, (std::vector<uint32_t>{1, 2, 4}));
}

TEST(ScenarioTest, BundledDepthBareMetalReapsBothWaysAtEachDepth) {
  const Scenario s = LoadScenario(TestSourceDir() + "/scenarios/depth-bare-metal.json");
  std::vector<std::pair<uint32_t, Reap>> runs;
  for (const JobSpec& j : s.jobs) runs.emplace_back(j.iodepth, j.reap);
  EXPECT_EQ(runs, (std::vector<std::pair<uint32_t, Reap>>{{1, Reap::Wait}, {1, Reap::Poll},
                                                          {8, Reap::Wait}, {8, Reap::Poll},
                                                          {32, Reap::Wait}, {32, Reap::Poll}}));
}

TEST(ScenarioTest, ParseSizeSuffixes) {
  EXPECT_EQ(ParseSize(nlohmann::json(4096)), 4096u);
  EXPECT_EQ(ParseSize(nlohmann::json("4k")), 4096u);
  EXPECT_EQ(ParseSize(nlohmann::json("1M")), 1u << 20);
  EXPECT_EQ(ParseSize(nlohmann::json("64MiB")), 64u << 20);
  EXPECT_EQ(ParseSize(nlohmann::json("2g")), 2ull << 30);
  EXPECT_THROW(ParseSize(nlohmann::json("4x")), std::invalid_argument);
  EXPECT_THROW(ParseSize(nlohmann::json("k")), std::invalid_argument);
  EXPECT_THROW(ParseSize(nlohmann::json(-1)), std::invalid_argument);
  EXPECT_THROW(ParseSize(nlohmann::json(true)), std::invalid_argument);
}

TEST(ScenarioTest, VirtioScsiTargetParses) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "targets": ["virtio-scsi"], "disk": {"iothread": true, "num_queues": 4},
          "jobs": [{"name": "a"}]})",
      "t.json");
  ASSERT_EQ(s.targets, std::vector<TargetKind>{TargetKind{Bus::VirtioScsi}});
  EXPECT_EQ(ToString(s.targets[0]), "virtio-scsi");
  EXPECT_TRUE(s.disk.iothread);
}

TEST(ScenarioTest, NullCoDiskTakesItsLatencyAsADuration) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "targets": ["virtio-blk"],
          "disk": {"driver": "null-co", "null_latency": "100us", "size": "1g"},
          "jobs": [{"name": "a"}]})",
      "t.json");
  EXPECT_EQ(s.disk.driver, "null-co");
  EXPECT_EQ(s.disk.null_latency_ns, 100000u);
  EXPECT_EQ(s.expanded["disk"]["null_latency"], 100000);
}

TEST(ScenarioTest, NullCoWithBareMetalIsFineWhenExcluded) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "disk": {"driver": ["file", "null-co"]},
          "matrix_exclude": [{"target": "bare-metal", "disk.driver": "null-co"}],
          "jobs": [{"name": "a"}]})",
      "t.json");
  EXPECT_EQ(s.machines.size(), 2u);
}

TEST(ScenarioTest, FilesystemDiskDefaultsItsFileToThreeQuartersOfTheDisk) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "disk": {"filesystem": ["none", "ext4", "xfs"], "size": "64m"},
          "jobs": [{"name": "a"}]})",
      "t.json");
  ASSERT_EQ(s.machines.size(), 3u);
  EXPECT_EQ(s.machines[0].disk.filesystem, "");
  EXPECT_EQ(s.machines[0].disk.image_bytes(), 64ull << 20);
  EXPECT_EQ(s.machines[1].disk.filesystem, "ext4");
  EXPECT_EQ(s.machines[1].disk.fs_file_bytes, 48ull << 20);
  // The image is disk.size unless the filesystem needs more room around the file.
  EXPECT_EQ(s.machines[1].disk.image_bytes(),
            std::max<uint64_t>(64ull << 20, MinimumImageBytes("ext4", 48ull << 20)));
  // xfs refuses filesystems under 300 MiB: the image grows, the file does not.
  EXPECT_EQ(s.machines[2].disk.fs_file_bytes, 48ull << 20);
  EXPECT_GE(s.machines[2].disk.image_bytes(), 300ull << 20);
}

TEST(ScenarioTest, QcowAndNamedBlockDeviceWithAllowWrites) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "disk": {"backing": "/dev/sdb", "allow_writes": true},
          "jobs": [{"name": "a", "rw": "write"}]})",
      "t.json");
  EXPECT_TRUE(s.disk.allow_writes);
  const Scenario q =
      ParseScenario(R"({"name": "t", "disk": {"format": "qcow2"}, "jobs": [{"name": "a"}]})",
                    "t.json");
  EXPECT_EQ(q.disk.format, "qcow2");
}

struct BadCase {
  const char* text;
  const char* expected;  // the whole message
};

class ScenarioRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioRejects, WithFileFieldAndReason) {
  try {
    ParseScenario(GetParam().text, "bad.json");
    FAIL() << "accepted: " << GetParam().text;
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), GetParam().expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ScenarioRejects,
    ::testing::Values(
        BadCase{"{", "bad.json: not valid JSON: parse error at "
                     "line 1, column 2: syntax error while parsing object key - unexpected "
                     "end of input; expected string literal"},
        BadCase{"[]", "bad.json: (top level): must be a JSON object"},
        BadCase{R"({"jobs": [{"name": "a"}]})", "bad.json: name: required field is missing"},
        BadCase{R"({"name": "t"})", "bad.json: jobs: required: a non-empty list of job objects"},
        BadCase{R"({"name": "t", "jobs": []})",
                "bad.json: jobs: required: a non-empty list of job objects"},
        BadCase{R"({"name": "t", "colour": 1, "jobs": [{"name": "a"}]})",
                "bad.json: colour: unknown field (known: name, description, targets, matrix_exclude, "
                "repeats, warmup, order, order_seed, reboot)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bsz": 4096}]})",
                "bad.json: jobs[0].bsz: unknown field (known: name, pattern, rw, rwmixread, stride, "
                "random_distribution, zipf_theta, hot_fraction, hot_pct, ioengine, bs, iodepth, "
                "reap, submit_batch, numjobs, numjobs_split, "
                "size, io_size, runtime, direct, huge_buffers, invalidate, cache, cached_fraction, loops, invalidate_each_pass, "
                "invalidate_in_runtime, fadvise_hint, "
                "madvise_hint, mmap_window, verify, read_ahead_kb, scheduler, nr_requests, "
                "max_sectors_kb, gappy_read, gappy_skip, random_run, fsync, end_fsync, inflight_sample_ms, "
                "stats_sample_ms, trace, trace_detail, seed)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "trace": true, "direct": false}]})",
                "bad.json: jobs[0].trace: buffered IO reaches the block layer as page-cache "
                "readahead and writeback, not one request per IO: set direct true"},
        BadCase{R"({"name": "t", "disk": {"filesystem": "ext4"},
                    "jobs": [{"name": "a", "trace": true}]})",
                "bad.json: jobs[0].trace: the job runs on a file in disk.filesystem \"ext4\", "
                "whose own requests (journal, metadata) the trace cannot tell from the job's; "
                "trace needs disk.filesystem \"none\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "rw": "randread"}]})",
                "bad.json: jobs[0].rw: expected one of read, write, mixed, got \"randread\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "pattern": "zigzag"}]})",
                "bad.json: jobs[0].pattern: expected one of sequential, random, gappy, strided, "
                "got \"zigzag\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "ioengine": "posixaio"}]})",
                "bad.json: jobs[0].ioengine: expected one of psync, io_uring, libaio, mmap, pvsync2, "
                "pvsync2_hipri, pvsync2_nowait, got \"posixaio\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": "4q"}]})",
                "bad.json: jobs[0].bs: unknown size suffix 'q' in \"4q\" (use k, m, g or t; "
                "powers of 1024)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": 1000}]})",
                "bad.json: jobs[0].bs: must be a multiple of 512, got 1000"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": 256}]})",
                "bad.json: jobs[0].bs: value 256 is out of range [512, 64m]"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "iodepth": 0}]})",
                "bad.json: jobs[0].iodepth: value 0 is out of range [1, 4096]"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "iodepth": "8"}]})",
                "bad.json: jobs[0].iodepth: expected a non-negative integer, got \"8\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "iodepth": -3}]})",
                "bad.json: jobs[0].iodepth: expected a non-negative integer, got -3"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "reap": "spin"}]})",
                "bad.json: jobs[0].reap: expected one of wait, poll, got \"spin\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "reap": "poll"}]})",
                "bad.json: jobs[0].reap: poll applies to ioengine \"io_uring\" and \"libaio\" "
                "only (ioengine is \"psync\", which is synchronous)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "submit_batch": 4}]})",
                "bad.json: jobs[0].submit_batch: applies to ioengine \"io_uring\" and \"libaio\" "
                "only (ioengine is \"psync\", which is synchronous)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "direct": 1}]})",
                "bad.json: jobs[0].direct: expected true or false, got 1"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "runtime": "3s"}]})",
                "bad.json: jobs[0].runtime: expected a number, got \"3s\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "runtime": -1}]})",
                "bad.json: jobs[0].runtime: value -1 is out of range [0, 86400] s"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a"}, {"name": "a"}]})",
                "bad.json: jobs[1].name: job name \"a\" is used twice"},
        BadCase{R"({"name": "t", "jobs": [{"name": ""}]})", "bad.json: jobs[0].name: must not be empty"},
        BadCase{R"({"name": "t", "jobs": ["a"]})", "bad.json: jobs[0]: must be a JSON object"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "size": "1g"}]})",
                "bad.json: jobs[0].size: job region (1073741824 bytes) is larger than disk.size "
                "(67108864 bytes)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "gappy_read": 0}]})",
                "bad.json: jobs[0].gappy_read: value 0 is out of range [1, 1048576] blocks"},
        BadCase{R"({"name": "t", "targets": [], "jobs": [{"name": "a"}]})",
                "bad.json: targets: expected a non-empty list of targets"},
        BadCase{R"({"name": "t", "targets": ["ide"], "jobs": [{"name": "a"}]})",
                "bad.json: targets: expected targets from virtio-blk, nvme, virtio-scsi, ahci, "
                "bare-metal, got \"ide\""},
        BadCase{R"({"name": "t", "targets": ["nvme", "nvme"], "jobs": [{"name": "a"}]})",
                "bad.json: targets: target \"nvme\" is listed twice"},
        BadCase{R"({"name": "t", "machine": {"vcpus": 0}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.vcpus: value 0 is out of range [1, 64]"},
        BadCase{R"({"name": "t", "machine": {"memory": "1m"}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.memory: value 1m is out of range [128m, 64g]"},
        BadCase{R"({"name": "t", "machine": {"accel": "hvf"}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.accel: expected one of auto, kvm, tcg, got \"hvf\""},
        BadCase{R"({"name": "t", "machine": [], "jobs": [{"name": "a"}]})",
                "bad.json: machine: must be a JSON object"},
        BadCase{R"({"name": "t", "disk": {"aio": "posix"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.aio: expected one of threads, native, io_uring, got \"posix\""},
        BadCase{R"({"name": "t", "disk": {"cache": "unsafe"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.cache: expected one of none, writeback, got \"unsafe\""},
        BadCase{R"({"name": "t", "disk": {"aio": "native", "cache": "writeback"},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.aio: \"native\" needs cache \"none\" (QEMU requires O_DIRECT for "
                "it)"},
        BadCase{R"({"name": "t", "disk": {"queue_size": 100}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.queue_size: must be a power of two, got 100"},
        BadCase{R"({"name": "t", "disk": {"queue_size": 4096}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.queue_size: value 4096 is out of range [4, 1024]"},
        BadCase{R"({"name": "t", "disk": {"size": "512k"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.size: value 512k is out of range [1m, 16t]"},
        BadCase{R"({"name": "t", "disk": {"sizes": 1}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.sizes: unknown field (known: size, backing, allow_writes, "
                "passthrough, format, driver, null_latency, filesystem, fs_file_size, "
                "num_queues, queue_size, iothread, aio, cache, no_flush, request_merging)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "fsync": 16}]})",
                "bad.json: jobs[0].fsync: fsync and end_fsync apply to write jobs only (rw is "
                "\"read\")"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "rw": "write", "fsync": -1}]})",
                "bad.json: jobs[0].fsync: expected a non-negative integer, got -1"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "ioengine": "mmap"}]})",
                "bad.json: jobs[0].ioengine: mmap reads go through the page cache: set direct "
                "false"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "ioengine": "mmap", "direct": false,
                    "iodepth": 4}]})",
                "bad.json: jobs[0].iodepth: ioengine mmap issues one access at a time: set 1"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "mmap_window": "64k"}]})",
                "bad.json: jobs[0].mmap_window: applies to ioengine \"mmap\" only (ioengine is "
                "\"psync\")"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "ioengine": "mmap", "direct": false,
                    "mmap_window": 1000}]})",
                "bad.json: jobs[0].mmap_window: must be a multiple of the page size (4k), got 1000"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "cache": "partial"}]})",
                "bad.json: jobs[0].cached_fraction: required with cache \"partial\" (the fraction "
                "of the region to cache first, 0 .. 1)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "cache": "warm", "cached_fraction": 0.5}]})",
                "bad.json: jobs[0].cached_fraction: applies to cache \"partial\" only (cache is "
                "\"warm\")"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "cache": "partial", "cached_fraction": 1.5}]})",
                "bad.json: jobs[0].cached_fraction: value 1.5 is out of range [0, 1]"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "cache": "keep", "invalidate": true}]})",
                "bad.json: jobs[0].invalidate: invalidate true contradicts cache \"keep\" "
                "(invalidate true means cache \"cold\" or \"cold-global\"): give one of them"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "rwmixread": 70}]})",
                "bad.json: jobs[0].rwmixread: applies to rw \"mixed\" only (rw is \"read\")"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "rw": "mixed", "rwmixread": 101}]})",
                "bad.json: jobs[0].rwmixread: value 101 is out of range [0, 100] %"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "random_distribution": "zipf"}]})",
                "bad.json: jobs[0].random_distribution: applies to pattern \"random\" only "
                "(pattern is \"sequential\")"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "pattern": "random",
                    "random_distribution": "zipf", "zipf_theta": 1}]})",
                "bad.json: jobs[0].zipf_theta: must not be 1 (use 0.9 or 1.1 for a near-harmonic "
                "skew)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "fadvise_hint": "dontneed"}]})",
                "bad.json: jobs[0].fadvise_hint: expected one of none, sequential, random, "
                "willneed, got \"dontneed\""},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "read_ahead_kb": -2}]})",
                "bad.json: jobs[0].read_ahead_kb: value -2 is out of range [-1, 1048576] KiB"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "nr_requests": 0}]})",
                "bad.json: jobs[0].nr_requests: must be at least 1, or -1 to leave it"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": []}]})",
                "bad.json: jobs[0].bs: an empty list gives no runs"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": ["4k", "4q"]}]})",
                "bad.json: jobs[0].bs[1]: unknown size suffix 'q' in \"4q\" (use k, m, g or t; "
                "powers of 1024)"},
        BadCase{R"({"name": "t", "jobs": [{"name": ["a", "b"]}]})",
                "bad.json: jobs[0].name: takes one value, not a list"},
        BadCase{R"({"name": "t", "machine": {"accel": ["kvm", "tcg"]}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.accel: takes one value, not a list"},
        BadCase{R"({"name": "t", "matrix_exclude": [{"size": "1m"}], "jobs": [{"name": "a"}]})",
                "bad.json: matrix_exclude[0].size: 'size' is ambiguous: write disk.size, job.size"},
        BadCase{R"({"name": "t", "matrix_exclude": [{"job.bsz": 1}], "jobs": [{"name": "a"}]})",
                "bad.json: matrix_exclude[0].job.bsz: no machine, disk or job field is named "
                "'job.bsz'"},
        BadCase{R"({"name": "t", "matrix_exclude": [{}], "jobs": [{"name": "a"}]})",
                "bad.json: matrix_exclude[0]: expected a non-empty object of field -> value, got {}"},
        BadCase{R"({"name": "t", "matrix_exclude": [{"aio": "threads"}], "jobs": [{"name": "a"}]})",
                "bad.json: matrix_exclude: drops every machine and disk combination"},
        BadCase{R"({"name": "t", "disk": {"aio": ["native", "threads"], "cache": "writeback"},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.aio: \"native\" needs cache \"none\" (QEMU requires O_DIRECT for "
                "it)"},
        BadCase{R"({"name": "t", "order": "shuffled", "jobs": [{"name": "a"}]})",
                "bad.json: order: expected one of sequential, random, interleaved, got \"shuffled\""},
        BadCase{R"({"name": "t", "repeats": 0, "jobs": [{"name": "a"}]})",
                "bad.json: repeats: value 0 is out of range [1, 1000]"},
        BadCase{R"({"name": "t", "machine": {"sample_period_ms": 1}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.sample_period_ms: value 1 is out of range [10, 60000] ms"},
        // Disk kinds: format, driver, filesystem, a named block device.
        BadCase{R"({"name": "t", "disk": {"format": "vmdk"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.format: expected one of raw, qcow2, got \"vmdk\""},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co", "format": "qcow2"},
                    "targets": ["virtio-blk"], "jobs": [{"name": "a"}]})",
                "bad.json: disk.format: \"qcow2\" needs an image; driver \"null-co\" has none"},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co", "filesystem": "ext4"},
                    "targets": ["virtio-blk"], "jobs": [{"name": "a"}]})",
                "bad.json: disk.filesystem: \"ext4\" needs an image; driver \"null-co\" has none"},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co", "backing": "/data/x.raw"},
                    "targets": ["virtio-blk"], "jobs": [{"name": "a"}]})",
                "bad.json: disk.driver: \"null-co\" has no storage: it cannot use disk.backing "
                "(/data/x.raw)"},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.driver: \"null-co\" has no storage for the bare-metal target: drop "
                "\"bare-metal\" from targets, or exclude {\"target\": \"bare-metal\", "
                "\"disk.driver\": \"null-co\"}"},
        BadCase{R"({"name": "t", "disk": {"driver": "host_device"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.driver: expected one of file, null-co, got \"host_device\""},
        BadCase{R"({"name": "t", "disk": {"null_latency": "50us"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.null_latency: applies to driver \"null-co\" only (driver is "
                "\"file\")"},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co", "null_latency": "50 us"},
                    "targets": ["nvme"], "jobs": [{"name": "a"}]})",
                "bad.json: disk.null_latency: unknown duration unit ' us' in \"50 us\" (use ns, "
                "us, ms or s)"},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co", "null_latency": "2s"},
                    "targets": ["nvme"], "jobs": [{"name": "a"}]})",
                "bad.json: disk.null_latency: value 2s is out of range [0, 1s]"},
        BadCase{R"({"name": "t", "disk": {"driver": "null-co", "null_latency": true},
                    "targets": ["nvme"], "jobs": [{"name": "a"}]})",
                "bad.json: disk.null_latency: expected a duration like \"50us\", \"2ms\" or "
                "\"1s\", got true"},
        BadCase{R"({"name": "t", "disk": {"backing": "/dev/sdb"},
                    "jobs": [{"name": "a", "rw": "write"}]})",
                "bad.json: jobs[0].rw: \"write\" would overwrite the block device /dev/sdb named "
                "in disk.backing; set disk.allow_writes true if that is meant"},
        BadCase{R"({"name": "t", "disk": {"backing": "/data/x.raw", "allow_writes": true},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.allow_writes: applies to a block device named in disk.backing "
                "only"},
        BadCase{R"({"name": "t", "disk": {"backing": "/data/x.raw", "format": "qcow2"},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.format: \"qcow2\" applies to the backing storbed creates, not to "
                "disk.backing (/data/x.raw)"},
        BadCase{R"({"name": "t", "disk": {"backing": "/data/x.raw", "filesystem": "xfs"},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.filesystem: storbed makes the filesystem image itself: it cannot "
                "use disk.backing (/data/x.raw)"},
        BadCase{R"({"name": "t", "disk": {"filesystem": "btrfs"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.filesystem: expected one of none, ext4, xfs, got \"btrfs\""},
        BadCase{R"({"name": "t", "disk": {"fs_file_size": "16m"}, "jobs": [{"name": "a"}]})",
                "bad.json: disk.fs_file_size: applies to filesystem \"ext4\" or \"xfs\" only"},
        BadCase{R"({"name": "t", "disk": {"filesystem": "ext4", "fs_file_size": "128m"},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.fs_file_size: the test file (134217728 bytes) is larger than "
                "disk.size (67108864 bytes)"},
        BadCase{R"({"name": "t", "disk": {"filesystem": "ext4", "fs_file_size": 10000},
                    "jobs": [{"name": "a"}]})",
                "bad.json: disk.fs_file_size: must be a multiple of 4k, got 10000"},
        BadCase{R"({"name": "t", "disk": {"filesystem": "ext4", "fs_file_size": "16m"},
                    "jobs": [{"name": "a", "size": "32m"}]})",
                "bad.json: jobs[0].size: job region (33554432 bytes) is larger than "
                "disk.fs_file_size (16777216 bytes)"},
        BadCase{R"({"name": "t", "machine": {"nr_requests": 0}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.nr_requests: must be at least 1, or -1 to leave it"},
        BadCase{R"({"name": "t", "machine": {"max_sectors_kb": 0}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.max_sectors_kb: must be at least 1, or -1 to leave it"},
        BadCase{R"({"name": "t", "machine": {"read_ahead_kb": -5}, "jobs": [{"name": "a"}]})",
                "bad.json: machine.read_ahead_kb: value -5 is out of range [-1, 1048576] KiB"},
        BadCase{R"({"name": "t", "matrix_exclude": [{"read_ahead_kb": 128}],
                    "jobs": [{"name": "a"}]})",
                "bad.json: matrix_exclude[0].read_ahead_kb: 'read_ahead_kb' is ambiguous: write "
                "machine.read_ahead_kb, job.read_ahead_kb"}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      return "case" + std::to_string(info.index);
    });

}  // namespace scenario_test
}  // namespace storbed

namespace storbed {
namespace scenario_test {  // named, not anonymous: a unity build joins files

// Issue 15: input that --dry-run called valid and the real run failed on after setup.
INSTANTIATE_TEST_SUITE_P(
    NamesAndLimits, ScenarioRejects,
    ::testing::Values(
        BadCase{R"({"name": "my run", "jobs": [{"name": "a"}]})",
                "bad.json: name: \"my run\" may hold only letters, digits, '.', '_' and '-', "
                "beginning with a letter or digit (it names files, run ids and guests)"},
        BadCase{R"({"name": "a/b", "jobs": [{"name": "a"}]})",
                "bad.json: name: \"a/b\" may hold only letters, digits, '.', '_' and '-', "
                "beginning with a letter or digit (it names files, run ids and guests)"},
        BadCase{R"({"name": "../up", "jobs": [{"name": "a"}]})",
                "bad.json: name: \"../up\" may hold only letters, digits, '.', '_' and '-', "
                "beginning with a letter or digit (it names files, run ids and guests)"},
        BadCase{"{\"name\": \"t\xc3\xa9st\", \"jobs\": [{\"name\": \"a\"}]}",
                "bad.json: name: \"t\\u00e9st\" may hold only letters, digits, '.', '_' and '-', "
                "beginning with a letter or digit (it names files, run ids and guests)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "../../../tmp/evil"}]})",
                "bad.json: jobs[0].name: \"../../../tmp/evil\" may hold only letters, digits, "
                "'.', '_' and '-', beginning with a letter or digit (it names files, run ids "
                "and guests)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a\u0007b"}]})",
                "bad.json: jobs[0].name: \"a\\u0007b\" may hold only letters, digits, '.', '_' "
                "and '-', beginning with a letter or digit (it names files, run ids and "
                "guests)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]})",
                "bad.json: jobs[0].name: is 100 characters long; names are at most 64"},
        BadCase{R"({"name": "t", "name": "u", "jobs": [{"name": "a"}]})",
                "bad.json: key \"name\" appears twice in one object (in the top level)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": "4k", "bs": "64k"}]})",
                "bad.json: key \"bs\" appears twice in one object (in jobs[0])"},
        BadCase{R"({"name": "t", "disk": {"size": "1m", "size": "2m"}, "jobs": [{"name": "a"}]})",
                "bad.json: key \"size\" appears twice in one object (in disk)"},
        BadCase{R"({"name": "t", "jobs": [{"name": "a", "bs": "64k", "io_size": "4k"}]})",
                "bad.json: jobs[0].io_size: 4096 bytes is less than one block (bs 65536 bytes): "
                "the job would do no IO"},
        BadCase{R"({"name": "t", "disk": {"size": "1m"}, "jobs": [{"name": "a", "numjobs": 64,
                    "numjobs_split": true, "bs": "64k"}]})",
                "bad.json: jobs[0].numjobs_split: the region of 1048576 bytes cannot be split "
                "into numjobs=64 slices of at least bs=65536 bytes"},
        BadCase{R"({"name": "t", "repeats": 1000, "jobs": [{"name": "a"}, {"name": "b"},
                    {"name": "c"}, {"name": "d"}]})",
                "bad.json: (matrix): expands to 12000 runs, more than the limit of 10000; "
                "narrow the lists, or raise the limit with --max-runs"},
        BadCase{R"({"name": "t", "repeats": 1000, "machine": {"vcpus": [1, 2, 3, 4, 5, 6, 7, 8]},
                    "disk": {"num_queues": [1, 2, 3, 4, 5, 6, 7, 8]},
                    "jobs": [{"name": "a", "iodepth": [1, 2, 4, 8, 16, 32, 64, 128]}]})",
                "bad.json: (matrix): expands to 1536000 runs, more than the limit of 10000; "
                "narrow the lists, or raise the limit with --max-runs"}));

TEST(ScenarioTest, MaxRunsRaisesTheMatrixLimit) {
  const char* text = R"({"name": "t", "repeats": 1000, "jobs": [{"name": "a"}, {"name": "b"},
                         {"name": "c"}, {"name": "d"}]})";
  EXPECT_THROW(ParseScenario(text, "t.json", 11999), ScenarioError);
  EXPECT_EQ(ParseScenario(text, "t.json", 12000).repeats, 1000u);
}

TEST(ScenarioTest, DevZeroAsTheScenarioFileIsRefusedBeforeReading) {
  try {
    LoadScenario("/dev/zero");
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "/dev/zero: the scenario file is a character device, not a regular file");
  }
}

}  // namespace scenario_test
}  // namespace storbed

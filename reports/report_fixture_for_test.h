// Test helper: a small results directory on disk for the report renderers: a guest run and
// its bare-metal twin (ladders, timelines files, latency histograms), a second bare-metal
// repeat, a warm-up, manifest.json and results.json. Names carry markup, as a user's might.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed::testing_support {

inline constexpr const char* kEvilJob = "r<script>alert(1)</script>";

inline LayerStats FixtureLayer(const char* id, double depth, double latency_us) {
  LayerStats l;
  l.layer = id;
  l.available = true;
  l.source = std::string("test ") + id;
  l.avg_depth = depth;
  l.has_latency = true;
  l.mean_latency_us = latency_us;
  return l;
}

inline RunRecord FixtureRun(const std::string& id, const std::string& target, int repeat) {
  RunRecord r;
  r.run_id = id;
  r.target = target;
  r.accel = target == "bare-metal" ? "host" : "tcg";
  r.job.name = kEvilJob;
  r.params = {{"repeat", repeat}, {"warmup", false}};
  JobResult res;
  res.iops = 1000 * repeat;
  res.mib_s = 4 * repeat;
  res.latency = {4, 1.0, 26, 100.5, 1.0, 1.0, 100.5, 100.5};
  // Repeat 2 is slow where repeat 1 is fast: the medians of their p50s (1 and 100 us)
  // would be 50 us, which no IO took; their merged IOs have the p50 at 1 us.
  res.latency_histogram.Add(1000, 16, repeat == 2 ? 1 : 3);
  res.latency_histogram.Add(100000, 1024, repeat == 2 ? 3 : 1);
  r.result = res;
  r.timelines_file = "timelines/" + id + ".json";
  Ladder ladder;
  ladder.layers.push_back(FixtureLayer(kLayerApp, 4, 30));
  if (target != "bare-metal") {
    ladder.layers.push_back(FixtureLayer(kLayerGuestBlock, 3.5, 25));
    LayerStats vq;
    vq.layer = kLayerVirtqueue;
    vq.reason = "needs QEMU >= 7.2 <x-query-virtio>";
    ladder.layers.push_back(vq);
  }
  ladder.layers.push_back(FixtureLayer(kLayerHostDevice, 1.5, 10));
  r.ladder = ladder;
  return r;
}

inline nlohmann::json FixtureTimelines(const std::string& device, bool host_samplers) {
  auto line = [](const std::string& name, const std::string& unit, double base) {
    Timeline t{name, unit, {}, {}};
    for (int i = 0; i < 20; ++i) t.Add(i * 0.1, base + i % 3);
    return t;
  };
  std::vector<Timeline> guest = {line("guest." + device + ".inflight", "requests", 3),
                                 line("guest." + device + ".depth", "requests", 2),
                                 line("guest." + device + ".iops", "IO/s", 900),
                                 line("guest." + device + ".request_kib", "KiB", 4)};
  std::vector<Timeline> host;
  if (host_samplers)
    host = {line("qemu.d0.depth", "requests", 2), line("host.sda.depth", "requests", 1)};
  return {{"guest", guest}, {"host", host}};
}

// The directory's records: 000 (warm-up), 001 guest, 002 and 003 bare-metal repeats.
inline std::vector<RunRecord> WriteFixtureDir(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir + "/timelines");
  RunRecord warmup = FixtureRun("000-virtio-blk-r-w", "virtio-blk", 0);
  warmup.status = RunStatus::Warmup;
  warmup.timelines_file.clear();
  std::vector<RunRecord> records = {warmup, FixtureRun("001-virtio-blk-r", "virtio-blk", 1),
                                    FixtureRun("002-bare-metal-r-r1", "bare-metal", 1),
                                    FixtureRun("003-bare-metal-r-r2", "bare-metal", 2)};
  std::ofstream(dir + "/timelines/001-virtio-blk-r.json") << FixtureTimelines("vda", true).dump();
  for (const char* id : {"002-bare-metal-r-r1", "003-bare-metal-r-r2"})
    std::ofstream(dir + "/timelines/" + id + ".json") << FixtureTimelines("loop3", false).dump();
  std::ofstream(dir + "/results.json") << nlohmann::json(records).dump();
  const nlohmann::json manifest = {
      {"scenario_file", "scenarios/<quick>.json"},
      {"started_at", "2024-05-01T10:00:00Z"},
      {"host", {{"storbed_version", "0.1"}, {"git_revision", "abc"}, {"kernel_release", "6.1.0"}}},
      {"environment", {{"host.kernel", "6.1.0 <evil>"}, {"cpu.model", "Test CPU"}}},
      {"machines",
       {{"virtio-blk",
         {{"guest_kernel", "6.1.0-guest"},
          {"accel", "tcg"},
          {"qemu_version", "QEMU 7.2.0"},
          {"agent_version", "0.1"},
          {"host", "local"},
          {"backend", "qemu"}}}}},
      {"bare_metal", {{{"device", "/dev/loop3"}, {"backing", "/var/tmp/b.raw"}}}}};
  std::ofstream(dir + "/manifest.json") << manifest.dump();
  return records;
}

inline std::string FixtureDirName(const std::string& what) {
  return (std::filesystem::temp_directory_path() /
          ("storbed-" + what + "-" + std::to_string(getpid())))
      .string();
}

}  // namespace storbed::testing_support

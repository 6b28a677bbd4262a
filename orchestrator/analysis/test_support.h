// Hand-built results and layers for the analysis tests.
#pragma once

#include <string>

#include "ladder.h"
#include "result.h"

namespace storbed::testing_support {

// A 4 KiB random read at depth 32: 10 s, 100000 IOs, guest vda depth 31.8.
inline JobResult GuestRandRead() {
  JobResult r;
  r.job = "randread";
  r.target = "/dev/vda";
  r.ios = 100000;
  r.bytes = 100000 * 4096ull;
  r.runtime_s = 10;
  r.iops = 10000;
  r.latency.count = 100000;
  r.latency.mean_us = 3200;
  r.app_avg_depth = 32;
  r.block.available = true;
  r.block.device = "vda";
  r.block.layer = "guest block layer";
  r.block.interval_s = 10;
  r.block.reads = 100000;
  r.block.read_bytes = 100000 * 4096ull;
  r.block.iops = 10000;
  r.block.avg_request_bytes = 4096;
  r.block.avg_queue_depth = 31.8;
  return r;
}

inline LayerStats Layer(const char* id, double depth, double iops = 10000, double latency_us = -1) {
  LayerStats l;
  l.layer = id;
  l.available = true;
  l.source = std::string("test ") + id;
  l.avg_depth = depth;
  l.has_iops = true;
  l.iops = iops;
  if (latency_us >= 0) {
    l.has_latency = true;
    l.mean_latency_us = latency_us;
  }
  return l;
}

inline LayerStats Missing(const char* id, const std::string& reason) {
  LayerStats l;
  l.layer = id;
  l.reason = reason;
  return l;
}

}  // namespace storbed::testing_support

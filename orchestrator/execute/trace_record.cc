#include "execute/trace_record.h"

#include <filesystem>
#include <fstream>

#include "judging/verdict.h"
#include "strict_json.h"
#include "tracing/io_path_file.h"

namespace storbed {

void StoreIoTrace(RunContext& ctx, RunRecord& record, const PathJoin& join, FigureInputs inputs,
                  const std::vector<std::string>& warnings) {
  if (record.ladder) inputs.ladder = &*record.ladder;
  IoTraceFigures f = ComputeIoTraceFigures(join, inputs);
  f.warnings = warnings;
  f.complete = warnings.empty();
  f.overhead = kTraceOverheadNote;
  const JobResult& r = *record.result;
  if (r.io_trace) {
    f.resolution_ns = r.io_trace->resolution_ns;
    if (r.io_trace->trace_clock == "local")
      f.block_clock = "each CPU's local clock put on CLOCK_MONOTONIC by markers, +- " +
                      FixedText(r.io_trace->trace_clock_fit_ns / 1000.0, "%.1f") + " us";
    if (r.io_trace->not_logged)
      f.warnings.push_back(std::to_string(r.io_trace->not_logged) +
                           " IOs completed beyond the agent's log of " +
                           std::to_string(r.io_trace->log_cap) + " and are not in the figures");
  }
  const std::string file = "traces/" + record.run_id + ".ios.tsv.zst";
  try {
    std::filesystem::create_directories(ctx.results.File("traces"));
    f.file_ios = WriteIoPathFile(ctx.results.File(file), join, kIoPathFileCap);
    f.file = file;
    f.file_cap = kIoPathFileCap;
  } catch (const std::exception& e) {
    f.warnings.push_back(std::string("the joined IOs were not kept: ") + e.what());
  }
  ctx.log << "    trace: " << f.joined << " of " << f.ios << " IOs joined across "
          << f.points.size() << " points; clock " << f.clock_method << "\n";
  record.io_trace = std::move(f);
}

std::vector<AgentTracedIo> ReadAgentTraceFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the agent's trace file " + path);
  std::vector<AgentTracedIo> ios;
  std::string line;
  size_t total = 0;
  bool any = false;
  while (std::getline(in, line)) {
    TracedIoChunkView view;
    try {
      view = ParseTracedIoChunk(ParseJson(line));
    } catch (const std::invalid_argument& e) {  // nested too deep
      throw IoTraceChunkError("the agent's trace file " + path + " is cut: " + e.what());
    } catch (const nlohmann::json::exception& e) {
      throw IoTraceChunkError("the agent's trace file " + path + " is cut: " + e.what());
    }
    if (view.from != ios.size())
      throw IoTraceChunkError("the agent's trace file " + path + " skips from IO " +
                              std::to_string(ios.size()) + " to " + std::to_string(view.from));
    total = view.total;
    any = true;
    ios.insert(ios.end(), view.ios.begin(), view.ios.end());
  }
  if (!any || ios.size() != total)
    throw IoTraceChunkError("the agent's trace file " + path + " holds " +
                            std::to_string(ios.size()) + " of " + std::to_string(total) + " IOs");
  return ios;
}

void StoreBareMetalTrace(RunContext& ctx, RunRecord& record, std::vector<AgentTracedIo> ios) {
  const JobResult& r = *record.result;
  PathInputs in;
  in.agent = std::move(ios);
  in.first_sector = r.io_trace->first_sector;
  PathJoin join = JoinPaths(in);
  FigureInputs fi;
  fi.path = "bare metal (" + r.io_trace->disk + ")";
  fi.phase_start_ns = r.io_start_ns;
  fi.phase_end_ns = r.io_end_ns;
  fi.agent_layer = "host block layer (" + r.io_trace->disk + ")";
  if (r.block.available) {
    fi.agent_layer_counter = r.block.avg_queue_depth;
    fi.agent_counter_span_s = r.block.interval_s;
  }
  fi.histogram_p50_us = r.latency.p50_us;
  std::vector<std::string> warnings;
  if (!r.io_trace->complete) warnings.push_back("host block trace cut short: " + r.io_trace->why_incomplete);
  StoreIoTrace(ctx, record, join, fi, warnings);
}

}  // namespace storbed

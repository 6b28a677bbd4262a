#include "io_trace.h"

#include <cstring>

#include "strict_json.h"

namespace storbed {

bool AgentTracedIo::operator==(const AgentTracedIo& o) const {
  return offset == o.offset && bytes == o.bytes && write == o.write && queued_ns == o.queued_ns &&
         submit_ns == o.submit_ns &&
         seen_ns == o.seen_ns && std::memcmp(block.at, o.block.at, sizeof block.at) == 0 &&
         block.requests == o.block.requests && block.shared == o.block.shared && state == o.state;
}

void to_json(nlohmann::json& j, const IoTraceSummary& s) {
  j = nlohmann::json{{"layer", s.layer},
                     {"disk", s.disk},
                     {"major", s.major},
                     {"minor", s.minor},
                     {"first_sector", s.first_sector},
                     {"ios", s.ios},
                     {"not_logged", s.not_logged},
                     {"log_cap", s.log_cap},
                     {"joined", s.joined},
                     {"missing", s.missing},
                     {"ambiguous", s.ambiguous},
                     {"events", s.events},
                     {"unmatched_events", s.unmatched_events},
                     {"lost_events", s.lost_events},
                     {"buffer_kb_per_cpu", s.buffer_kb_per_cpu},
                     {"resolution_ns", s.resolution_ns},
                     {"trace_clock", s.trace_clock},
                     {"trace_clock_fit_ns", s.trace_clock_fit_ns},
                     {"complete", s.complete},
                     {"why_incomplete", s.why_incomplete}};
}

void from_json(const nlohmann::json& j, IoTraceSummary& s) {
  s.layer = j.at("layer").get<std::string>();
  s.disk = j.at("disk").get<std::string>();
  s.major = WholeNumber<uint32_t>(j.at("major"));
  s.minor = WholeNumber<uint32_t>(j.at("minor"));
  s.first_sector = WholeNumber<uint64_t>(j.at("first_sector"));
  s.ios = WholeNumber<uint64_t>(j.at("ios"));
  s.not_logged = WholeNumber<uint64_t>(j.at("not_logged"));
  s.log_cap = WholeNumber<uint64_t>(j.at("log_cap"));
  s.joined = WholeNumber<uint64_t>(j.at("joined"));
  s.missing = WholeNumber<uint64_t>(j.at("missing"));
  s.ambiguous = WholeNumber<uint64_t>(j.at("ambiguous"));
  s.events = WholeNumber<uint64_t>(j.at("events"));
  s.unmatched_events = WholeNumber<uint64_t>(j.at("unmatched_events"));
  s.lost_events = WholeNumber<uint64_t>(j.at("lost_events"));
  s.buffer_kb_per_cpu = WholeNumber<uint64_t>(j.at("buffer_kb_per_cpu"));
  s.resolution_ns = WholeNumber<uint64_t>(j.at("resolution_ns"));
  // Results written before the local clock existed were all on "mono".
  s.trace_clock = j.value("trace_clock", std::string("mono"));
  s.trace_clock_fit_ns = j.value("trace_clock_fit_ns", uint64_t{0});
  s.complete = j.at("complete").get<bool>();
  s.why_incomplete = j.at("why_incomplete").get<std::string>();
}

nlohmann::json TracedIoChunk(const std::vector<AgentTracedIo>& ios, size_t from, size_t count) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = from; i < ios.size() && i < from + count; ++i) {
    const AgentTracedIo& io = ios[i];
    nlohmann::json row = {io.offset, io.bytes, int(io.write), io.submit_ns,
                          int64_t(io.submit_ns - io.queued_ns), int64_t(io.seen_ns - io.submit_ns)};
    for (uint64_t t : io.block.at) row.push_back(t ? int64_t(t - io.submit_ns) : int64_t(-1));
    row.push_back(io.block.requests);
    row.push_back(int(io.state));
    row.push_back(int(io.block.shared));
    rows.push_back(std::move(row));
  }
  return {{"from", from}, {"total", ios.size()}, {"ios", std::move(rows)}};
}

TracedIoChunkView ParseTracedIoChunk(const nlohmann::json& chunk) {
  constexpr size_t kFields = 6 + kBlockEventKinds + 3;
  TracedIoChunkView v;
  try {
    v.from = WholeNumber<size_t>(chunk.at("from"));
    v.total = WholeNumber<size_t>(chunk.at("total"));
    for (const nlohmann::json& row : chunk.at("ios")) {
      if (!row.is_array() || row.size() != kFields)
        throw IoTraceChunkError("an IO record has " + std::to_string(row.size()) +
                                " fields, not " + std::to_string(kFields));
      AgentTracedIo io;
      io.offset = WholeNumber<uint64_t>(row[0]);
      io.bytes = WholeNumber<uint32_t>(row[1]);
      io.write = WholeNumber<int>(row[2]) != 0;
      io.submit_ns = WholeNumber<uint64_t>(row[3]);
      io.queued_ns = io.submit_ns - WholeNumber<int64_t>(row[4]);
      io.seen_ns = io.submit_ns + WholeNumber<int64_t>(row[5]);
      for (int k = 0; k < kBlockEventKinds; ++k) {
        const int64_t d = WholeNumber<int64_t>(row[6 + k]);
        io.block.at[k] = d < 0 ? 0 : io.submit_ns + uint64_t(d);
      }
      io.block.requests = WholeNumber<uint32_t>(row[6 + kBlockEventKinds]);
      const int state = WholeNumber<int>(row[7 + kBlockEventKinds]);
      if (state < 0 || state > int(JoinState::Ambiguous))
        throw IoTraceChunkError("an IO record has join state " + std::to_string(state));
      io.state = JoinState(state);
      io.block.shared = WholeNumber<int>(row[8 + kBlockEventKinds]) != 0;
      v.ios.push_back(io);
    }
  } catch (const nlohmann::json::exception& e) {
    throw IoTraceChunkError(std::string("an IO trace chunk does not parse: ") + e.what());
  } catch (const std::invalid_argument& e) {  // WholeNumber: a float or out of range
    throw IoTraceChunkError(std::string("an IO trace chunk does not parse: ") + e.what());
  }
  if (v.from + v.ios.size() > v.total)
    throw IoTraceChunkError("an IO trace chunk holds IOs " + std::to_string(v.from) + ".." +
                            std::to_string(v.from + v.ios.size()) + " of only " +
                            std::to_string(v.total));
  return v;
}

}  // namespace storbed

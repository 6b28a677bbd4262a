#include "io_trace.h"

#include <cstring>

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
  s.major = j.at("major").get<uint32_t>();
  s.minor = j.at("minor").get<uint32_t>();
  s.first_sector = j.at("first_sector").get<uint64_t>();
  s.ios = j.at("ios").get<uint64_t>();
  s.not_logged = j.at("not_logged").get<uint64_t>();
  s.log_cap = j.at("log_cap").get<uint64_t>();
  s.joined = j.at("joined").get<uint64_t>();
  s.missing = j.at("missing").get<uint64_t>();
  s.ambiguous = j.at("ambiguous").get<uint64_t>();
  s.events = j.at("events").get<uint64_t>();
  s.unmatched_events = j.at("unmatched_events").get<uint64_t>();
  s.lost_events = j.at("lost_events").get<uint64_t>();
  s.buffer_kb_per_cpu = j.at("buffer_kb_per_cpu").get<uint64_t>();
  s.resolution_ns = j.at("resolution_ns").get<uint64_t>();
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
    v.from = chunk.at("from").get<size_t>();
    v.total = chunk.at("total").get<size_t>();
    for (const nlohmann::json& row : chunk.at("ios")) {
      if (!row.is_array() || row.size() != kFields)
        throw IoTraceChunkError("an IO record has " + std::to_string(row.size()) +
                                " fields, not " + std::to_string(kFields));
      AgentTracedIo io;
      io.offset = row[0].get<uint64_t>();
      io.bytes = row[1].get<uint32_t>();
      io.write = row[2].get<int>() != 0;
      io.submit_ns = row[3].get<uint64_t>();
      io.queued_ns = io.submit_ns - row[4].get<int64_t>();
      io.seen_ns = io.submit_ns + row[5].get<int64_t>();
      for (int k = 0; k < kBlockEventKinds; ++k) {
        const int64_t d = row[6 + k].get<int64_t>();
        io.block.at[k] = d < 0 ? 0 : io.submit_ns + uint64_t(d);
      }
      io.block.requests = row[6 + kBlockEventKinds].get<uint32_t>();
      const int state = row[7 + kBlockEventKinds].get<int>();
      if (state < 0 || state > int(JoinState::Ambiguous))
        throw IoTraceChunkError("an IO record has join state " + std::to_string(state));
      io.state = JoinState(state);
      io.block.shared = row[8 + kBlockEventKinds].get<int>() != 0;
      v.ios.push_back(io);
    }
  } catch (const nlohmann::json::exception& e) {
    throw IoTraceChunkError(std::string("an IO trace chunk does not parse: ") + e.what());
  }
  if (v.from + v.ios.size() > v.total)
    throw IoTraceChunkError("an IO trace chunk holds IOs " + std::to_string(v.from) + ".." +
                            std::to_string(v.from + v.ios.size()) + " of only " +
                            std::to_string(v.total));
  return v;
}

}  // namespace storbed

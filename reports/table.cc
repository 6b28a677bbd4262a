#include "reports/table.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace storbed {
namespace {

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Bytes(uint64_t b) {
  if (b % (1 << 20) == 0) return std::to_string(b >> 20) + "m";
  if (b % 1024 == 0) return std::to_string(b >> 10) + "k";
  return std::to_string(b);
}

std::string ShortLayer(const std::string& layer) {
  if (layer == "guest block layer") return "guest";
  if (layer == "host device") return "host dev";
  return layer;
}

using Row = std::vector<std::string>;

// Columns before the measured figures (run .. io), and where "host" goes when shown.
constexpr size_t kFixedColumns = 6, kHostColumn = 2;

Row RowFor(const RunRecord& r) {
  Row row{r.run_id, r.target, ToString(r.job.pattern) + " " + ToString(r.job.rw),
          Bytes(r.job.bs), std::to_string(r.job.iodepth) + " " + ToString(r.job.engine),
          r.job.direct ? "direct" : "buffered"};
  if (r.status != RunStatus::Ok || !r.result) {
    row.insert(row.end(), {ToString(r.status), "-", "-", "-", "-", "-", r.accel, "-"});
    return row;
  }
  const JobResult& res = *r.result;
  const BlockStats& b = res.block;
  row.push_back(Fixed(res.mib_s, 2));
  row.push_back(Fixed(res.iops, 0));
  row.push_back(Fixed(res.latency.p50_us, 1));
  row.push_back(Fixed(res.latency.p99_us, 1));
  row.push_back(b.available && (b.reads + b.writes) ? Fixed(b.avg_request_bytes / 1024.0, 1)
                                                    : "n/a");
  row.push_back(b.available ? Fixed(b.avg_queue_depth, 2) + " " + ShortLayer(b.layer) : "n/a");
  row.push_back(r.accel);
  row.push_back(!r.durability || !r.durability->checked ? "-"
                : r.durability->durable                 ? "yes"
                                                        : "NO");
  return row;
}

}  // namespace

std::string RenderTable(const std::vector<RunRecord>& all_records) {
  // Warm-up runs only prepared their combination: reports leave them out.
  std::vector<RunRecord> records;
  for (const auto& r : all_records)
    if (r.status != RunStatus::Warmup) records.push_back(r);
  // Hosts in parallel append in the order runs end; run ids number the plan's order.
  std::stable_sort(records.begin(), records.end(),
                   [](const RunRecord& a, const RunRecord& b) { return a.run_id < b.run_id; });
  Row header{"run", "target", "pattern", "bs", "depth", "io", "MiB/s", "IOPS", "p50 us",
             "p99 us", "req KiB", "avg QD (layer)", "accel", "durable"};
  // The host is a column only when it varies: a single-host table stays as it was.
  std::set<std::string> hosts;
  for (const auto& r : records) hosts.insert(r.host_name);
  const bool host_column = hosts.size() > 1;
  if (host_column) header.insert(header.begin() + kHostColumn, "host");
  // Group by job in first-seen order, keeping each job's targets in run order.
  std::vector<std::string> job_order;
  for (const auto& r : records)
    if (std::find(job_order.begin(), job_order.end(), r.job.name) == job_order.end())
      job_order.push_back(r.job.name);
  std::vector<Row> rows;
  for (const auto& name : job_order)
    for (const auto& r : records) {
      if (r.job.name != name) continue;
      rows.push_back(RowFor(r));
      if (host_column) rows.back().insert(rows.back().begin() + kHostColumn, r.host_name);
    }

  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::ostringstream out;
  auto print = [&](const Row& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      const size_t first_figure = kFixedColumns + (host_column ? 1 : 0);
      const bool numeric = c >= first_figure && c <= first_figure + 4;
      const std::string pad(width[c] - row[c].size(), ' ');
      out << (numeric ? pad + row[c] : row[c] + pad) << (c + 1 < row.size() ? "  " : "\n");
    }
  };
  print(header);
  for (const auto& row : rows) print(row);

  std::set<std::string> notes;
  for (const auto& r : records) {
    if (r.accel == "tcg")
      notes.insert("accel=tcg: guests ran under software emulation; guest figures show the "
                   "virtual disk path's shape, not KVM-speed numbers.");
    if (r.status != RunStatus::Ok) notes.insert(r.run_id + ": " + ToString(r.status) + ": " + r.error);
    if (r.durability && r.durability->checked && !r.durability->durable)
      notes.insert(r.run_id + ": not durable: " + r.durability->reason);
    if (r.result) {
      for (const auto& w : r.result->warnings) notes.insert(r.run_id + ": " + w);
      if (!r.result->block.available)
        notes.insert(r.run_id + ": no depth figure: " + r.result->block.reason);
    }
  }
  if (!notes.empty()) {
    out << "\nnotes:\n";
    for (const auto& n : notes) out << "  - " << n << "\n";
  }
  out << "\nreq KiB and avg QD come from /proc/diskstats deltas of the target device "
         "(guest: its block layer; bare metal: the loop device over the same backing).\n";
  return out.str();
}

}  // namespace storbed

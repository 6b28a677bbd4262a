#include "reports/table.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/run_stats.h"
#include "judging/median_interval.h"
#include "number_format.h"
#include "reports/cells.h"

namespace storbed {
namespace {

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
  row.push_back(FormatFixed(res.mib_s, 2));
  row.push_back(FormatFixed(res.iops, 0));
  row.push_back(FormatFixed(res.latency.p50_us, 1));
  row.push_back(FormatFixed(res.latency.p99_us, 1));
  row.push_back(b.available && (b.reads + b.writes) ? FormatFixed(b.avg_request_bytes / 1024.0, 1)
                                                    : "n/a");
  row.push_back(b.available ? FormatFixed(b.avg_queue_depth, 2) + " " + ShortLayer(b.layer)
                            : "n/a");
  row.push_back(r.accel);
  row.push_back(!r.durability || !r.durability->checked ? "-"
                : r.durability->durable                 ? "yes"
                                                        : "NO");
  return row;
}

// One row per run, grouped by job in first-seen order.
ReportTable PerRunTable(const std::vector<RunRecord>& records) {
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
  const size_t first_figure = kFixedColumns + (host_column ? 1 : 0);
  return {header, rows, first_figure, first_figure + 4, "", {}, ""};
}

bool HasRepeats(const std::vector<RunRecord>& records) {
  for (const CellRuns& c : GroupCells(records))
    if (c.ok.size() + c.failed > 1) return true;
  return false;
}

std::string MedianOf(const std::vector<const RunRecord*>& runs, int decimals,
                     const std::function<std::optional<double>(const RunRecord&)>& get) {
  std::vector<double> v;
  for (const RunRecord* r : runs)
    if (auto x = get(*r)) v.push_back(*x);
  return v.empty() ? "n/a" : FormatFixed(Median(v), decimals);
}

// One row per cell: n, the median IOPS with its distribution-free 95% interval (n >= 6)
// and the runs' coefficient of variation, then the medians of the other figures.
Row AggregateRow(const CellRuns& c) {
  const RunRecord& f = *c.first;
  Row row{c.cell, ToString(f.job.pattern) + " " + ToString(f.job.rw), Bytes(f.job.bs),
          std::to_string(f.job.iodepth) + " " + ToString(f.job.engine),
          f.job.direct ? "direct" : "buffered", std::to_string(c.ok.size()),
          std::to_string(c.failed)};
  if (c.ok.empty()) {
    row.insert(row.end(), {"-", "-", "-", "-", "-", "-", "-", "-", f.accel});
    return row;
  }
  std::vector<double> iops;
  for (const RunRecord* r : c.ok) iops.push_back(r->result->iops);
  std::string ci = "-";
  if (const auto i = MedianIntervalOf(iops))
    ci = FormatFixed(i->low, 0) + " .. " + FormatFixed(i->high, 0);
  auto result = [](double (*get)(const JobResult&)) {
    return [get](const RunRecord& r) -> std::optional<double> { return get(*r.result); };
  };
  row.push_back(FormatFixed(Median(iops), 0));
  row.push_back(ci);
  row.push_back(FormatFixed(100 * CoefficientOfVariation(iops), 1));
  row.push_back(MedianOf(c.ok, 2, result([](const JobResult& r) { return r.mib_s; })));
  row.push_back(MedianOf(c.ok, 1, result([](const JobResult& r) { return r.latency.p50_us; })));
  row.push_back(MedianOf(c.ok, 1, result([](const JobResult& r) { return r.latency.p99_us; })));
  row.push_back(MedianOf(c.ok, 1, [](const RunRecord& r) -> std::optional<double> {
    const BlockStats& b = r.result->block;
    if (!b.available || !(b.reads + b.writes)) return std::nullopt;
    return b.avg_request_bytes / 1024.0;
  }));
  row.push_back(MedianOf(c.ok, 2, [](const RunRecord& r) -> std::optional<double> {
    if (!r.result->block.available) return std::nullopt;
    return r.result->block.avg_queue_depth;
  }));
  row.push_back(f.accel);
  return row;
}

ReportTable AggregateTable(const std::vector<RunRecord>& records) {
  const Row header{"cell", "pattern", "bs", "depth", "io", "n", "failed", "IOPS median",
                   "IOPS 95% CI", "CV %", "MiB/s", "p50 us", "p99 us", "req KiB", "avg QD",
                   "accel"};
  std::vector<Row> rows;
  for (const CellRuns& c : GroupCells(records)) rows.push_back(AggregateRow(c));
  return {header, rows, 5, 14,
          "repeats grouped by cell: medians over the n measured runs (warm-ups left out, "
          "failed runs counted); the CI is the median's distribution-free 95% interval from "
          "order statistics (n >= 6; '-' below, where no such interval exists); CV is the "
          "runs' spread. --per-repeat shows every run.",
          {}, ""};
}

// invalidate_each_pass: the drops beside the figure, and the figure counted the other way
// (fio counts the drops in runtime; storbed by default does not), so both can be compared.
std::string PassesNote(const RunRecord& r) {
  const JobResult& res = *r.result;
  double drops = 0;
  std::ostringstream out;
  out << res.passes << " passes; cache dropped before passes 2.." << res.passes << " in";
  out.setf(std::ios::fixed);
  out.precision(3);
  for (double d : res.invalidations_s) {
    out << " " << d << " s";
    drops += d;
  }
  const double io_s = r.job.invalidate_in_runtime ? res.runtime_s - drops : res.runtime_s;
  out.precision(0);
  if (io_s > 0 && io_s + drops > 0)
    out << "; IOPS " << double(res.ios) / io_s << " without the drops, "
        << double(res.ios) / (io_s + drops) << " with them (fio's way); the table shows "
        << (r.job.invalidate_in_runtime ? "with (invalidate_in_runtime)" : "without");
  return out.str();
}

// What makes figures less trustworthy: TCG, failed runs, agent warnings.
std::vector<std::string> Notes(const std::vector<RunRecord>& records) {
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
      if (!r.result->invalidations_s.empty()) notes.insert(r.run_id + ": " + PassesNote(r));
    }
  }
  return {notes.begin(), notes.end()};
}

}  // namespace

std::string AlignedTable(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows, size_t first_numeric,
                         size_t last_numeric) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::ostringstream out;
  auto print = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      const bool numeric = c >= first_numeric && c <= last_numeric;
      const std::string pad(width[c] - row[c].size(), ' ');
      out << (numeric ? pad + row[c] : row[c] + pad) << (c + 1 < row.size() ? "  " : "\n");
    }
  };
  print(header);
  for (const auto& row : rows) print(row);
  return out.str();
}

ReportTable BuildTable(const std::vector<RunRecord>& all_records, bool per_repeat) {
  const std::vector<RunRecord> records = ReportedRuns(all_records);
  const bool aggregate = !per_repeat && HasRepeats(records);
  ReportTable table = aggregate ? AggregateTable(records) : PerRunTable(records);
  table.notes = Notes(records);
  table.footnote =
      "req KiB and avg QD come from /proc/diskstats deltas of the target device "
      "(guest: its block layer; bare metal: the loop device over the same backing).";
  return table;
}

std::string RenderTable(const std::vector<RunRecord>& records, bool per_repeat) {
  const ReportTable t = BuildTable(records, per_repeat);
  std::ostringstream out;
  out << AlignedTable(t.header, t.rows, t.first_numeric, t.last_numeric);
  if (!t.legend.empty()) out << "\n" << t.legend << "\n";
  if (!t.notes.empty()) {
    out << "\nnotes:\n";
    for (const auto& n : t.notes) out << "  - " << n << "\n";
  }
  out << "\n" << t.footnote << "\n";
  return out.str();
}

}  // namespace storbed

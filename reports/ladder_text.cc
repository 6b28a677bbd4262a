#include "reports/ladder_text.h"

#include <cstdio>

#include "analysis/depth_loss.h"

namespace storbed {
namespace {

constexpr int kLayerWidth = 16;
// depth, IOPS, KiB, latency: the widths of one ladder's figures.
constexpr const char* kFiguresFormat = "%7s %10s %8s %10s";
constexpr const char* kNone = "-";

std::string Printf(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Figures(const std::string& depth, const std::string& iops, const std::string& kib,
                    const std::string& lat) {
  char buf[128];
  std::snprintf(buf, sizeof buf, kFiguresFormat, depth.c_str(), iops.c_str(), kib.c_str(),
                lat.c_str());
  return buf;
}

std::string Figures(const LayerStats* l) {
  if (l == nullptr || !l->available) return Figures(kNone, kNone, kNone, kNone);
  return Figures(FormatDepth(l->avg_depth), l->has_iops ? Printf("%.0f", l->iops) : kNone,
                 l->has_request_size ? Printf("%.1f", l->avg_request_bytes / 1024) : kNone,
                 l->has_latency ? Printf("%.1f", l->mean_latency_us) : kNone);
}

std::string Where(const LayerStats& l) {
  return l.available ? l.source : "not available: " + l.reason;
}

const LayerStats* Find(const Ladder& ladder, const std::string& id) {
  for (const LayerStats& l : ladder.layers)
    if (l.layer == id) return &l;
  return nullptr;
}

std::string Padded(const std::string& s, int width) {
  std::string out = s;
  if (static_cast<int>(out.size()) < width) out.resize(width, ' ');
  return out;
}

// The latency-added line: each step top down, then the lowest timed layer's own latency,
// which is the time below every layer above it.
std::string LatencyLine(const Ladder& ladder) {
  const std::vector<LatencyStep> steps = LatencyAdded(ladder);
  if (steps.empty()) return "fewer than two layers have a mean latency";
  std::string line;
  for (const LatencyStep& s : steps) line += s.sentence + "; ";
  line += HumanLayerName(steps.back().below) + " itself takes " +
          Printf("%.1f", steps.back().below_us) + " us";
  return line;
}

// `first_side` names the first column group: "guest", or "bare metal" when alone.
std::string Render(const std::string& title, const std::string& first_side, const Ladder& guest,
                   const std::optional<Ladder>& bare_metal) {
  // Rows: the guest's layers in order, then any bare-metal layer the guest lacks.
  std::vector<std::string> ids;
  for (const LayerStats& l : guest.layers) ids.push_back(l.layer);
  if (bare_metal)
    for (const LayerStats& l : bare_metal->layers)
      if (Find(guest, l.layer) == nullptr) ids.push_back(l.layer);

  const std::string group_width(Figures(kNone, kNone, kNone, kNone).size(), ' ');
  std::string out = title + "\n";
  std::string groups = Padded("", kLayerWidth) + Padded(first_side, group_width.size());
  if (bare_metal) groups += " | bare metal";
  out += groups + "\n";
  const std::string heading = Figures("depth", "IOPS", "KiB", "lat us");
  out += Padded("layer", kLayerWidth) + heading;
  if (bare_metal) out += " | " + heading;
  out += "  source\n";

  std::vector<std::string> notes;
  for (const std::string& id : ids) {
    const LayerStats* g = Find(guest, id);
    const LayerStats* b = bare_metal ? Find(*bare_metal, id) : nullptr;
    std::string row = Padded(id, kLayerWidth) + Figures(g);
    if (bare_metal) row += " | " + Figures(b);
    std::string where;
    if (g != nullptr) where = Where(*g);
    // The same source on both sides (L0) is said once.
    if (b != nullptr && !(g != nullptr && Where(*g) == Where(*b)))
      where += (where.empty() ? "" : "; ") + std::string("bare metal: ") + Where(*b);
    out += row + "  " + where + "\n";
    if (g != nullptr)
      for (const std::string& n : g->notes) notes.push_back(id + ": " + n);
    if (b != nullptr)
      for (const std::string& n : b->notes) notes.push_back(id + " (bare metal): " + n);
  }
  for (const std::string& n : notes) out += "  note, " + n + "\n";

  out += "largest depth loss: " + LargestDepthLoss(guest).sentence + "\n";
  if (bare_metal)
    out += "largest depth loss, bare metal: " + LargestDepthLoss(*bare_metal).sentence + "\n";
  out += "latency added: " + LatencyLine(guest) + "\n";
  if (bare_metal) out += "latency added, bare metal: " + LatencyLine(*bare_metal) + "\n";
  return out;
}

}  // namespace

std::string RenderLadder(const std::string& title, const Ladder& guest,
                         const std::optional<Ladder>& bare_metal) {
  return Render(title, "guest", guest, bare_metal);
}

std::string RenderBareMetalLadder(const std::string& title, const Ladder& bare_metal) {
  return Render(title, "bare metal", bare_metal, std::nullopt);
}

}  // namespace storbed

#include "sampling/virtqueue_status.h"

#include "backend/bus_table.h"
#include "backend/qemu_argv.h"
#include "backend/qmp_client.h"
#include "inflight_stats.h"
#include "judging/mean_interval.h"
#include "timeline.h"

namespace storbed {
namespace {

using nlohmann::json;

VirtqueueTarget Unavailable(std::string reason) {
  VirtqueueTarget t;
  t.reason = std::move(reason);
  return t;
}

}  // namespace

VirtqueueTarget ResolveVirtqueues(const QmpExecutor& qmp, const std::string& device_id, Bus bus) {
  const BusRow& row = RowOf(bus);
  if (row.virtqueue == VirtqueueOwner::None) return Unavailable(row.no_virtqueue_reason);
  json devices;
  try {
    devices = qmp("x-query-virtio", json::object());
  } catch (const QmpError& e) {
    if (e.error_class() == "CommandNotFound") {
      return Unavailable("this QEMU has no x-query-virtio (added in 7.2, unstable)");
    }
    throw;
  }
  if (!devices.is_array())
    throw VirtqueueError("x-query-virtio did not return a list", devices.dump());
  // The device's own id names /machine/peripheral/<id>; its virtio part is the child
  // "virtio-backend", which is what x-query-virtio lists. A SCSI disk has no queues of
  // its own: they are its controller's.
  const std::string owner =
      row.virtqueue == VirtqueueOwner::Controller ? ControllerId(bus, device_id) : device_id;
  const std::string want = "/machine/peripheral/" + owner + "/virtio-backend";
  std::string path;
  for (const json& d : devices) {
    if (!d.is_object() || !d.contains("path") || !d.at("path").is_string()) {
      throw VirtqueueError("x-query-virtio entry without a path", devices.dump());
    }
    if (d.at("path").get<std::string>() == want) path = want;
  }
  if (path.empty()) return Unavailable("no virtio device " + want + " in x-query-virtio");
  json status;
  try {
    status = qmp("x-query-virtio-status", json{{"path", path}});
  } catch (const QmpError& e) {
    if (e.error_class() == "CommandNotFound") {
      return Unavailable("this QEMU has no x-query-virtio-status");
    }
    throw;
  }
  auto n = status.is_object() ? status.find("num-vqs") : status.end();
  if (n == status.end() || !n->is_number_integer() || n->get<int64_t>() < 1) {
    throw VirtqueueError("x-query-virtio-status " + path + " has no positive num-vqs",
                         status.dump());
  }
  VirtqueueTarget t;
  t.available = true;
  t.path = path;
  t.num_queues = n->get<int>();
  // virtio-scsi: queue 0 is control, 1 events, requests from 2 on.
  t.first_queue = row.first_request_queue;
  if (t.num_queues <= t.first_queue) {
    throw VirtqueueError("x-query-virtio-status " + path + " has no request queues", status.dump());
  }
  return t;
}

uint64_t ParseQueueInuse(const json& reply) {
  auto it = reply.is_object() ? reply.find("inuse") : reply.end();
  if (it == reply.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
    throw VirtqueueError("x-query-virtio-queue-status reply has no inuse count", reply.dump());
  }
  return it->get<uint64_t>();
}

VirtqueueSample SampleVirtqueues(const QmpExecutor& qmp, const VirtqueueTarget& target) {
  if (!target.available) throw VirtqueueError("virtqueues " + target.reason, "");
  VirtqueueSample s;
  for (int q = target.first_queue; q < target.num_queues; ++q) {
    // With an iothread QEMU reads these fields from the main loop while the iothread
    // moves them: each value is a consistent snapshot of one queue, not of all at once.
    json reply = qmp("x-query-virtio-queue-status", json{{"path", target.path}, {"queue", q}});
    uint64_t inuse = ParseQueueInuse(reply);
    s.inuse_per_queue.push_back(inuse);
    s.inuse_total += inuse;
  }
  return s;
}

LayerStats VirtqueueLayer(const VirtqueueTarget& target, const std::vector<double>& t_s,
                          const std::vector<double>& inuse, const std::string& source) {
  LayerStats l;
  l.layer = kLayerVirtqueue;
  l.source = source;
  if (!target.available) {
    l.reason = target.reason;
    return l;
  }
  if (t_s.empty() || t_s.size() != inuse.size()) {
    l.reason = "no virtqueue samples inside the window";
    return l;
  }
  Timeline tl;
  tl.t_s = t_s;
  tl.value = inuse;
  TimelineSummary s = Summarize(tl);
  l.available = true;
  l.avg_depth = s.time_weighted_mean;  // the plain mean when there is one sample
  l.inflight = DistributionOfSamples(inuse);
  // Samples 10 ms apart of a count that is 0 or 1 most of the time are alike and leave a
  // wide error on its mean: the interval says how wide, or why there is none.
  const MeanInterval m = MeanInterval95(inuse);
  l.depth_samples = m.samples;
  if (m.available) {
    l.has_depth_interval = true;
    l.depth_ci95 = m.half_width;
    l.interval_basis = m.basis;
  } else {
    l.interval_refused = m.basis;
  }
  l.notes.push_back("point samples of inuse summed over " +
                    std::to_string(target.num_queues - target.first_queue) + " request queue(s), " +
                    std::to_string(s.samples) + " samples, max " +
                    std::to_string(static_cast<uint64_t>(s.max)));
  return l;
}

}  // namespace storbed

#include "results/manifest.h"

#include "results/run_record.h"

namespace storbed {
namespace {

using nlohmann::json;

json ToJson(const ManifestBacking& b) {
  return {{"path", b.path},     {"size_bytes", b.size_bytes}, {"how", b.how},
          {"format", b.format}, {"filesystem", b.filesystem}, {"null_co", b.null_co}};
}

json ToJson(const ManifestImage& i) {
  return {{"kernel", i.kernel},        {"kernel_release", i.kernel_release},
          {"initrd", i.initrd},        {"content_hash", i.content_hash},
          {"modules", i.modules},      {"builtin", i.builtin},
          {"from_cache", i.from_cache}};
}

json ToJson(const ManifestBareMetal& u) {
  json unit = {
      {"device", u.device}, {"backing", u.backing}, {"loop_direct_io", true}, {"runs", u.runs}};
  if (!u.mount_dir.empty())
    unit["mount"] = {
        {"dir", u.mount_dir}, {"filesystem", u.mount_filesystem}, {"options", "rw,noatime"}};
  return unit;
}

}  // namespace

void to_json(json& j, const ManifestDoc& m) {
  j = {{"schema_version", kResultsSchemaVersion},
       {"host", m.host},
       {"environment", m.environment},
       {"scenario_file", m.scenario_file},
       {"scenario", m.scenario},
       {"order", {{"order", m.order}, {"seed", m.order_seed}}},
       {"plan", m.plan},
       {"session", m.session},
       {"hosts", m.hosts},
       {"host_failures", json::array()},
       {"started_at", m.started_at},
       {"machines", json::object()}};
  for (const auto& f : m.host_failures)
    j["host_failures"].push_back({{"host", f.host},
                                  {"uri", f.uri},
                                  {"error", f.error},
                                  {"at", f.at},
                                  {"moved_runs", f.moved_runs}});
  for (const auto& [key, b] : m.backings) j["backings"][key] = ToJson(b);
  if (m.backings.count(m.first_backing)) j["backing"] = ToJson(m.backings.at(m.first_backing));
  for (const auto& [key, path] : m.backing_copies)
    j["backing_copies"].push_back({{"for", key}, {"path", path}});
  for (const auto& [key, i] : m.guest_images) j["guest_images"][key] = ToJson(i);
  if (m.guest_images.count(m.first_image))
    j["guest_image"] = ToJson(m.guest_images.at(m.first_image));
  if (m.accel) {
    j["accel"] = {{"accel", m.accel->first}, {"reason", m.accel->second}};
    j["qemu_version"] = m.qemu_version;
  }
  for (const auto& [label, entry] : m.machines) j["machines"][label] = entry;
  for (const auto& u : m.bare_metal) j["bare_metal"].push_back(ToJson(u));
  if (!m.finished_at.empty()) j["finished_at"] = m.finished_at;
  if (m.failures) j["failures"] = *m.failures;
  if (m.interrupted) j["interrupted"] = true;
  if (!m.sequential.is_null()) j["sequential"] = m.sequential;
  if (!m.efficiency.is_null()) j["efficiency"] = m.efficiency;
}

Manifest::Manifest(ResultsDir& dir, ManifestDoc initial)
    : dir_(dir), doc_(std::move(initial)) {
  dir_.WriteManifest(doc_);
}

void Manifest::Update(const std::function<void(ManifestDoc&)>& change) {
  std::lock_guard lock(mu_);
  change(doc_);
  dir_.WriteManifest(doc_);
}

void Manifest::AddBacking(const std::string& key, const ManifestBacking& backing) {
  Update([&](ManifestDoc& m) {
    if (m.backings.empty()) m.first_backing = key;
    m.backings[key] = backing;
  });
}

void Manifest::AddBackingCopy(const std::string& key, const std::string& path) {
  Update([&](ManifestDoc& m) { m.backing_copies.emplace_back(key, path); });
}

void Manifest::AddGuestImage(const std::string& key, const ManifestImage& image) {
  Update([&](ManifestDoc& m) {
    if (m.guest_images.empty()) m.first_image = key;
    m.guest_images[key] = image;
  });
}

void Manifest::SetAccel(const std::string& accel, const std::string& reason,
                        const std::string& qemu_version) {
  Update([&](ManifestDoc& m) {
    m.accel.emplace(accel, reason);
    m.qemu_version = qemu_version;
  });
}

void Manifest::SetMachine(const std::string& label, nlohmann::json entry) {
  Update([&](ManifestDoc& m) { m.machines[label] = std::move(entry); });
}

void Manifest::UpdateMachine(const std::string& label, const nlohmann::json& patch) {
  Update([&](ManifestDoc& m) { m.machines[label].merge_patch(patch); });
}

void Manifest::AddBareMetal(ManifestBareMetal unit) {
  Update([&](ManifestDoc& m) { m.bare_metal.push_back(std::move(unit)); });
}

void Manifest::AddHostFailure(ManifestHostFailure failure) {
  Update([&](ManifestDoc& m) {
    for (auto& h : m.hosts)
      if (h["name"] == failure.host) h["status"] = "failed";
    m.host_failures.push_back(std::move(failure));
  });
}

void Manifest::SetSequential(nlohmann::json record) {
  Update([&record](ManifestDoc& m) { m.sequential = std::move(record); });
}

void Manifest::SetEfficiency(double io_phase_s, double warmup_s, double wall_s) {
  const auto share = [wall_s](double s) { return wall_s > 0 ? s / wall_s : 0.0; };
  Update([&](ManifestDoc& m) {
    m.efficiency = {{"io_phase_s", io_phase_s},
                    {"warmup_s", warmup_s},
                    {"wall_s", wall_s},
                    {"share", share(io_phase_s)},
                    {"share_with_warmups", share(io_phase_s + warmup_s)}};
  });
}

void Manifest::MarkInterrupted() {
  Update([](ManifestDoc& m) { m.interrupted = true; });
}

void Manifest::Finish(const std::string& finished_at, const std::vector<std::string>& failures,
                      const nlohmann::json& hosts) {
  Update([&](ManifestDoc& m) {
    m.finished_at = finished_at;
    m.failures = failures;
    if (!hosts.is_null()) m.hosts = hosts;
  });
}

nlohmann::json Manifest::Snapshot() const {
  std::lock_guard lock(mu_);
  return doc_;
}

}  // namespace storbed

#include "cleanup/domain_owner.h"

#include <time.h>

#include <cstdio>
#include <regex>

namespace storbed {

std::optional<double> ParseStartedTime(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
    return std::stod(text);
  std::tm tm{};
  int consumed = 0;
  const bool iso = std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
                               &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) == 6;
  if (!iso && std::sscanf(text.c_str(), "%4d%2d%2dT%2d%2d%2d%n", &tm.tm_year, &tm.tm_mon,
                          &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  double seconds = static_cast<double>(timegm(&tm));
  std::string rest = text.substr(consumed);
  if (!rest.empty() && rest[0] == '.') {  // fraction
    const size_t end = rest.find_first_not_of("0123456789", 1);
    seconds += std::stod("0" + rest.substr(0, end));
    rest = end == std::string::npos ? "" : rest.substr(end);
  }
  if (rest.empty() || rest == "Z") return seconds;
  int hours = 0, minutes = 0;
  if ((rest[0] == '+' || rest[0] == '-') &&
      std::sscanf(rest.c_str() + 1, "%2d:%2d", &hours, &minutes) == 2) {
    const double offset = hours * 3600.0 + minutes * 60.0;
    return rest[0] == '+' ? seconds - offset : seconds + offset;
  }
  return std::nullopt;
}

OwnerVerdict JudgeRunOwner(const std::optional<DomainOwner>& owner, const ProcessTable& processes,
                           const std::string& this_host) {
  if (!owner || owner->pid <= 0) return {OwnerState::Unknown, "no storbed owner in its metadata"};
  const std::string pid = "owner pid " + std::to_string(owner->pid);
  if (owner->host != this_host)
    return {OwnerState::Elsewhere, pid + " on host " +
                                       (owner->host.empty() ? "(none)" : owner->host) +
                                       ", which cannot be checked from " + this_host};
  const ProcessInfo* p = processes.Find(owner->pid);
  if (p == nullptr) return {OwnerState::Gone, pid + " gone"};
  const auto started = ParseStartedTime(owner->started);
  const auto process_started = processes.StartedAt(*p);
  // The run stamps its start after the process started; the slack covers whole-second
  // stamps and clock steps.
  constexpr double kSlackSeconds = 5;
  if (started && process_started && *process_started > *started + kSlackSeconds)
    return {OwnerState::Gone, pid + " gone (the pid now belongs to a newer process)"};
  return {OwnerState::Live, pid + " running"};
}

std::optional<DomainOwner> SessionOfName(const std::string& name) {
  static const std::regex kSession(R"re(^storbed-((\d{8}T\d{6})-(\d{1,9}))-)re");
  std::smatch m;
  if (!std::regex_search(name, m, kSession)) return std::nullopt;
  return DomainOwner{.session = m[1], .pid = std::stoi(m[3]), .host = "", .started = m[2]};
}

bool AStorbedRunIsUnderWay(const ProcessTable& processes) {
  for (const ProcessInfo& p : processes.processes())
    if (p.comm == "storbed" && p.argv.size() > 1 && p.argv[1] == "run") return true;
  return false;
}

VolumeVerdict JudgeVolume(const std::string& name, const std::string& path,
                          const VolumeContext& context) {
  const bool shared = name.rfind("storbed-", 0) != 0;
  if (shared && !context.prune_shared) return {};
  for (const auto& xml : context.kept_domain_xml)
    if (!path.empty() && DomainMentions(xml, path)) return {};
  if (shared) {
    const std::string what = "a shared kernel or initrd volume no domain uses";
    if (!context.uri_on_this_host)
      return {.stale = true,
              .needs_force = true,
              .reason = what + ", but a run on another host may be about to boot with it"};
    if (context.storbed_run_under_way)
      return {.stale = true,
              .needs_force = true,
              .reason = what + ", but a storbed run is under way here and may boot with it"};
    return {.stale = true, .needs_force = false, .reason = what};
  }
  std::optional<DomainOwner> session = SessionOfName(name);
  if (!session)
    return {.stale = true, .needs_force = true, .reason = "its name carries no storbed session"};
  const std::string prefix = "session " + session->session + ": ";
  OwnerVerdict verdict;
  if (auto it = context.session_verdicts.find(session->session);
      it != context.session_verdicts.end()) {
    verdict = it->second;
  } else {
    session->host = context.this_host;  // checked here; see below for remote URIs
    verdict = JudgeRunOwner(session, context.processes, context.this_host);
    if (verdict.state == OwnerState::Gone && !context.uri_on_this_host)
      return {.stale = true,
              .needs_force = true,
              .reason = prefix + "pid " + std::to_string(session->pid) +
                        " does not run here, and a run driving a remote libvirtd may be on "
                        "another host"};
  }
  switch (verdict.state) {
    case OwnerState::Live:
      return {};
    case OwnerState::Gone:
      return {.stale = true, .needs_force = false, .reason = prefix + verdict.reason};
    default:
      return {.stale = true, .needs_force = true, .reason = prefix + verdict.reason};
  }
}

}  // namespace storbed

#include "backend/qga_push.h"

#include <cstring>
#include <optional>
#include <thread>

#include "backend/base64.h"
#include "file_read.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

double ElapsedSecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Raw bytes per guest-file-write: 512 KiB is 683 KiB of base64, far below the 64 MiB
// token limit of QEMU's JSON parser, and each round trip costs tens of ms under TCG
// (48 KiB chunks took 5.7 s for a 3.7 MB agent, measured).
constexpr size_t kChunkBytes = 512 * 1024;
constexpr auto kCommandTimeout = 30s;

std::string ReadAgentBinary(const std::string& path) {
  int err = 0;
  std::optional<std::string> bytes = TryReadFile(path, &err);
  if (!bytes) throw QgaError("cannot read the agent binary " + path + ": " + std::strerror(err));
  return *bytes;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// guest-exec-status until the process exits (or `wait` passes: nullopt).
std::optional<nlohmann::json> WaitExited(QgaChannel& qga, int64_t pid,
                                         std::chrono::milliseconds wait,
                                         const std::function<void()>& check) {
  const auto until = Clock::now() + wait;
  for (;;) {
    nlohmann::json status = qga.Execute("guest-exec-status", {{"pid", pid}}, kCommandTimeout, check);
    if (status.value("exited", false)) return status;
    if (Clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(100ms);
  }
}

std::string ExitText(const nlohmann::json& status) {
  std::string text = status.contains("exitcode")
                         ? "exit status " + std::to_string(status["exitcode"].get<int64_t>())
                         : "signal " + std::to_string(status.value("signal", 0));
  const std::string err = Base64Decode(status.value("err-data", std::string()));
  if (!err.empty()) text += ", stderr: " + err;
  return text;
}

void CopyFile(QgaChannel& qga, const std::string& bytes, const std::string& path,
              const std::function<void()>& check) {
  const int64_t handle =
      qga.Execute("guest-file-open", {{"path", path}, {"mode", "w"}}, kCommandTimeout, check)
          .get<int64_t>();
  for (size_t at = 0; at < bytes.size(); at += kChunkBytes) {
    const std::string_view chunk = std::string_view(bytes).substr(at, kChunkBytes);
    const nlohmann::json wrote =
        qga.Execute("guest-file-write", {{"handle", handle}, {"buf-b64", Base64Encode(chunk)}},
                    kCommandTimeout, check);
    if (wrote.value("count", int64_t{-1}) != static_cast<int64_t>(chunk.size()))
      throw QgaError("guest-file-write to " + path + " wrote " +
                     wrote.dump() + " of " + std::to_string(chunk.size()) + " bytes");
  }
  qga.Execute("guest-file-close", {{"handle", handle}}, kCommandTimeout, check);
}

}  // namespace

void to_json(nlohmann::json& j, const AgentPushReport& r) {
  j = {{"path", r.path}, {"agent_up_s", r.agent_up_s}};
  if (r.path == "qga") {
    j.update({{"qga_version", r.qga_version}, {"qga_ready_s", r.qga_ready_s}, {"copy_s", r.copy_s},
              {"bytes", r.bytes}, {"guest_path", r.guest_path}, {"guest_pid", r.guest_pid},
              {"skipped", r.skipped}});
    return;
  }
  j["seed"] = std::string("NoCloud seed disk (iso9660, label cidata, serial ") + kSeedDiskSerial +
              ") and the agent on a raw disk (serial " + kAgentDiskSerial + ")";
  if (!r.qga_version.empty()) j["qga_version"] = r.qga_version;
  if (!r.not_qga.empty()) j["not_qga"] = r.not_qga;
}

const std::vector<std::string>& RequiredQgaCommands() {
  static const std::vector<std::string> names = {"guest-file-open", "guest-file-write",
                                                 "guest-file-close", "guest-exec",
                                                 "guest-exec-status"};
  return names;
}

std::vector<std::string> MissingQgaCommands(const nlohmann::json& guest_info,
                                            const std::vector<std::string>& required) {
  std::vector<std::string> missing;
  const nlohmann::json commands = guest_info.value("supported_commands", nlohmann::json::array());
  for (const std::string& name : required) {
    bool usable = false;
    for (const auto& c : commands)
      if (c.value("name", std::string()) == name) usable = c.value("enabled", false);
    if (!usable) missing.push_back(name);
  }
  return missing;
}

std::string BlockedCommandsText(const std::string& qga_version,
                                const std::vector<std::string>& missing) {
  return "the guest's qemu-ga " + qga_version + " blocks " + Joined(missing) +
         ", which putting the agent in needs: allow them (qemu-ga --allow-rpcs=" +
         Joined(RequiredQgaCommands()) +
         ", or take them out of --block-rpcs / block-rpcs in /etc/qemu/qemu-ga.conf "
         "/ BLOCK_RPCS in /etc/sysconfig/qemu-ga)";
}

std::vector<std::string> BlockedPushCommands(QgaChannel& qga, AgentPushReport& report,
                                             const std::function<void()>& check) {
  const nlohmann::json info = qga.Execute("guest-info", {}, kCommandTimeout, check);
  report.qga_version = info.value("version", std::string());
  return MissingQgaCommands(info, RequiredQgaCommands());
}

void CopyAndStartAgent(QgaChannel& qga, const std::string& agent_binary, AgentPushReport& report,
                       const std::function<void()>& check) {
  const std::string bytes = ReadAgentBinary(agent_binary);
  for (const std::string& path : PushedAgentPaths()) {
    const auto copy_start = Clock::now();
    try {
      CopyFile(qga, bytes, path, check);
    } catch (const QgaCommandError& e) {
      report.skipped.push_back(path + ": " + e.what());  // a read-only or missing directory
      continue;
    }
    report.copy_s += ElapsedSecondsSince(copy_start);
    report.bytes = bytes.size();

    const int64_t chmod_pid =
        qga.Execute("guest-exec",
                    {{"path", "/bin/chmod"}, {"arg", {"0700", path}}, {"capture-output", true}},
                    kCommandTimeout, check)
            .at("pid")
            .get<int64_t>();
    const auto chmod = WaitExited(qga, chmod_pid, kCommandTimeout, check);
    if (!chmod || chmod->value("exitcode", -1) != 0)
      throw QgaError("chmod 0700 " + path + " in the guest failed: " +
                     (chmod ? ExitText(*chmod) : "it did not finish in 30 s"));

    try {
      report.guest_pid =
          qga.Execute("guest-exec",
                      {{"path", path}, {"arg", {"--serve-port"}}, {"capture-output", true}},
                      kCommandTimeout, check)
              .at("pid")
              .get<int64_t>();
    } catch (const QgaCommandError& e) {
      // A file system mounted noexec: try the next place (and leave no copy behind).
      if (std::string(e.what()).find("Permission denied") == std::string::npos) throw;
      report.skipped.push_back(path + ": Permission denied on exec (mounted noexec)");
      qga.Execute("guest-exec", {{"path", "/bin/rm"}, {"arg", {"-f", path}}}, kCommandTimeout,
                  check);
      continue;
    }
    report.guest_path = path;
    // An agent that cannot start (no port) exits at once: say why here rather than as a
    // silent hello timeout.
    if (const auto died = WaitExited(qga, report.guest_pid, 1s, check))
      throw QgaError("the pushed agent " + path + " --serve-port exited at once: " +
                     ExitText(*died));
    return;
  }
  throw QgaError("the agent could not be put anywhere it runs in the guest (" +
                 Joined(report.skipped) + ")");
}

}  // namespace storbed

// Puts storbed-agent into a running foreign guest through its QEMU guest agent and starts
// it (`--serve-port`): the guest's OS is untouched on disk, the agent lives in its /run.
// The agent binary is static, so it runs on any x86-64 distribution.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/machine_spec.h"
#include "backend/qga_client.h"

namespace storbed {

// Where the agent goes in the guest, in this order: /var/tmp (on the root disk, which for a
// foreign guest is storbed's throwaway overlay), else /run (a tmpfs; systemd mounts it
// noexec on Debian 12). Each try costs a copy: a 3.7 MB agent takes 5-8 s through qemu-ga
// under TCG (its JSON parser goes byte by byte), so the likelier place comes first.
inline const std::vector<std::string>& PushedAgentPaths() {
  static const std::vector<std::string> paths = {"/var/tmp/storbed-agent", "/run/storbed-agent"};
  return paths;
}

// What the push did, for the machine's manifest entry.
struct AgentPushReport {
  std::string path = "qga";    // how the agent got in: "qga" or "cloud-init"
  std::string qga_version;     // guest-info's version
  double qga_ready_s = 0;      // from the push's start to qemu-ga's first answer
  double copy_s = 0;           // writing the binary through guest-file-write
  uint64_t bytes = 0;
  std::string guest_path;      // the one of PushedAgentPaths() it ran from
  // Those tried first: "PATH: why" (not writable, or its file system forbids exec).
  std::vector<std::string> skipped;
  int64_t guest_pid = 0;       // the agent's pid in the guest (guest-exec)
  // From the start of the entry step (QMP up) until the guest opened the agent's port.
  double agent_up_s = 0;
  // With path "cloud-init" under agent_push auto: why qemu-ga did not put it in.
  std::string not_qga;
};
void to_json(nlohmann::json& j, const AgentPushReport& r);

// The commands the push uses; a guest that blocks any of them cannot take the agent.
const std::vector<std::string>& RequiredQgaCommands();

// The names of `required` that guest-info's supported_commands lacks or has disabled;
// empty when all are usable.
std::vector<std::string> MissingQgaCommands(const nlohmann::json& guest_info,
                                            const std::vector<std::string>& required);

// guest-info: sets report.qga_version and returns the RequiredQgaCommands() it blocks.
std::vector<std::string> BlockedPushCommands(QgaChannel& qga, AgentPushReport& report,
                                             const std::function<void()>& check);

// "the guest's qemu-ga V blocks X, which putting the agent in needs: allow them (...)".
std::string BlockedCommandsText(const std::string& qga_version,
                                const std::vector<std::string>& missing);

// After Sync() and a guest-info that blocks nothing: copies `agent_binary` to the first of
// PushedAgentPaths() the guest can write and execute, and starts it there (fills report's
// copy and exec fields). Throws QgaError naming what failed: a write, no place the guest
// executes from, or an agent that exited at once (its exit code and stderr).
void CopyAndStartAgent(QgaChannel& qga, const std::string& agent_binary, AgentPushReport& report,
                       const std::function<void()>& check);

}  // namespace storbed

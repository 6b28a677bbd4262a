// The cloud-init way into a foreign guest: a NoCloud seed (an iso9660 image labelled
// "cidata" holding meta-data and user-data, as cloud-localds makes) whose user-data copies
// storbed-agent from a second small raw disk and starts it as a transient systemd service.
// No network: cloud-init's NoCloud source reads the seed disk, the agent comes from a disk.
#pragma once

#include <cstdint>
#include <string>

namespace storbed {

struct NoCloudSeed {
  std::string seed_image;  // seed.iso: meta-data + user-data
  std::string agent_disk;  // agent.img: the agent's bytes, zero-padded to 4 KiB
};

// meta-data: a fresh instance id, so cloud-init treats every run's guest as a new instance.
std::string NoCloudMetaData(const std::string& instance_id);

// #cloud-config user-data whose bootcmd (run early, on every boot) finds the disk with
// serial kAgentDiskSerial in /sys/block/*/serial, copies its first `agent_bytes` bytes to
// /var/tmp/storbed-agent, checks their sha256 and starts `storbed-agent --serve-port` with
// systemd-run (setsid where there is no systemd).
std::string NoCloudUserData(uint64_t agent_bytes, const std::string& agent_sha256);

// Writes seed.iso (genisoimage) and agent.img into `dir`. Throws std::runtime_error naming
// the file or the failing command.
NoCloudSeed MakeNoCloudSeed(const std::string& dir, const std::string& agent_binary,
                            const std::string& instance_id);

}  // namespace storbed

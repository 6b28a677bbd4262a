#include "execute/nocloud_seed.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "backend/machine_spec.h"
#include "execute/foreign_image.h"
#include "images/file_digest.h"
#include "images/run_tool.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error(path + ": cannot be written");
}

}  // namespace

std::string NoCloudMetaData(const std::string& instance_id) {
  return "instance-id: " + instance_id + "\nlocal-hostname: storbed-guest\n";
}

std::string NoCloudUserData(uint64_t agent_bytes, const std::string& agent_sha256) {
  const std::string serial = kAgentDiskSerial;
  // bootcmd runs in cloud-init's early stage on every boot. systemd-run --no-block: that
  // stage runs before sysinit.target, which a default transient unit would wait for.
  // DefaultDependencies=no starts the agent at once; it waits for its own port.
  return "#cloud-config\n"
         "# storbed: start storbed-agent from the disk with serial " + serial + "\n"
         "bootcmd:\n"
         "  - |\n"
         "    set -e\n"
         "    dev=\n"
         "    for d in /sys/block/*; do\n"
         "      if [ \"$(cat \"$d/serial\" 2>/dev/null)\" = \"" + serial + "\" ]; then dev=/dev/${d##*/}; fi\n"
         "    done\n"
         "    if [ -z \"$dev\" ]; then echo \"storbed: no disk with serial " + serial + "\" >&2; exit 1; fi\n"
         "    head -c " + std::to_string(agent_bytes) + " \"$dev\" > /var/tmp/storbed-agent\n"
         "    echo \"" + agent_sha256 + "  /var/tmp/storbed-agent\" | sha256sum -c --quiet\n"
         "    chmod 0700 /var/tmp/storbed-agent\n"
         "    if command -v systemd-run >/dev/null 2>&1; then\n"
         "      systemd-run --no-block --collect --unit=storbed-agent -p DefaultDependencies=no"
         " /var/tmp/storbed-agent --serve-port\n"
         "    else\n"
         "      setsid /var/tmp/storbed-agent --serve-port </dev/null >/dev/null 2>&1 &\n"
         "    fi\n";
}

NoCloudSeed MakeNoCloudSeed(const std::string& dir, const std::string& agent_binary,
                            const std::string& instance_id) {
  std::error_code ec;
  const uint64_t bytes = fs::file_size(agent_binary, ec);
  if (ec) throw std::runtime_error(agent_binary + ": cannot be read (" + ec.message() + ")");
  const fs::path staging = fs::path(dir) / "nocloud";
  fs::create_directories(staging);
  WriteFile((staging / "meta-data").string(), NoCloudMetaData(instance_id));
  WriteFile((staging / "user-data").string(), NoCloudUserData(bytes, FileSha256(agent_binary)));

  NoCloudSeed seed{.seed_image = dir + "/seed.iso", .agent_disk = dir + "/agent.img"};
  // cloud-localds' own layout: iso9660 with Rock Ridge and Joliet, volume id cidata.
  RunTool({"genisoimage", "-quiet", "-output", seed.seed_image, "-volid", "cidata", "-joliet",
           "-rock", (staging / "user-data").string(), (staging / "meta-data").string()},
          "apt-get install genisoimage");
  fs::copy_file(agent_binary, seed.agent_disk, fs::copy_options::overwrite_existing, ec);
  if (ec) throw std::runtime_error(seed.agent_disk + ": cannot be written (" + ec.message() + ")");
  // A whole number of 4 KiB blocks, so every block layer takes the disk's size as it is.
  fs::resize_file(seed.agent_disk, (bytes + 4095) / 4096 * 4096);
  fs::remove_all(staging, ec);
  return seed;
}

}  // namespace storbed

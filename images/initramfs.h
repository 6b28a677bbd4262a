// The layout of a storbed guest initramfs: what goes where, given bytes already in memory.
// The agent, as /init, reads the two /etc/storbed files at boot.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace storbed {

// One absolute in-archive module path per line, in load order.
inline constexpr std::string_view kInitramfsModuleList = "/etc/storbed/modules";
// The image description (release, modules, hashes) as JSON.
inline constexpr std::string_view kInitramfsManifest = "/etc/storbed/image.json";

struct InitramfsModule {
  std::string name;   // normalised module name, e.g. "nvme_core"
  std::string path;   // relative to the modules dir, without compression suffix: "kernel/x/y.ko"
  std::string bytes;  // uncompressed ELF
};

struct InitramfsContents {
  std::string release;                   // modules go under /lib/modules/<release>/
  std::string agent;                     // the static storbed-agent, installed as /init
  std::vector<InitramfsModule> modules;  // in load order
  std::string manifest_json;             // written to kInitramfsManifest
};

// "/lib/modules/<release>/<relative>": where a module sits in the guest.
std::string InitramfsModulePath(std::string_view release, std::string_view relative);

// Writes the whole newc archive to `out` and returns its size in bytes. Throws ImageError on
// a bad module path or a write error.
uint64_t WriteInitramfs(const InitramfsContents& contents, std::ostream& out);

}  // namespace storbed

#include "port.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <system_error>
#include <thread>

#include "sysfs_read.h"

namespace storbed::agent {
namespace {

namespace fs = std::filesystem;

// Makes the char device node from the port's "MAJ:MIN" dev file.
bool MakeNode(const fs::path& port_dir, const fs::path& node, std::string& problem) {
  const std::optional<std::string> dev = ReadTrimmed(port_dir / "dev");
  unsigned major_number = 0, minor_number = 0;
  if (!dev || std::sscanf(dev->c_str(), "%u:%u", &major_number, &minor_number) != 2) {
    problem = "port " + port_dir.filename().string() + " has no readable dev file yet";
    return false;
  }
  if (::mknod(node.c_str(), S_IFCHR | 0600, makedev(major_number, minor_number)) != 0 &&
      errno != EEXIST) {
    problem = "cannot create " + node.string() + " (" + *dev + "): " + ErrnoText(errno);
    return false;
  }
  return true;
}

}  // namespace

PortNotFoundError::PortNotFoundError(const std::string& port_name, std::chrono::milliseconds waited,
                                     const std::string& last_problem)
    : AgentError("no virtio-serial port named '" + port_name + "' appeared within " +
                 std::to_string(waited.count()) + " ms (" + last_problem +
                 "); does the machine have a virtserialport with that name?"),
      port_name_(port_name) {}

std::optional<fs::path> TryFindPort(const PortSearch& search, std::string& problem) {
  const fs::path ports = search.sysfs_root / "class" / "virtio-ports";
  std::error_code ec;
  fs::directory_iterator it(ports, ec);
  if (ec) {
    problem = ports.string() + " does not exist (virtio_console not loaded?)";
    return std::nullopt;
  }
  problem = "no port under " + ports.string() + " has that name";
  for (fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) break;
    // The name file is empty until the host announces the port's name.
    if (ReadTrimmed(it->path() / "name").value_or("") != search.name) continue;
    const fs::path node = search.dev_root / it->path().filename();
    if (fs::exists(node, ec)) return node;
    if (MakeNode(it->path(), node, problem)) return node;
  }
  return std::nullopt;
}

fs::path FindPort(const PortSearch& search) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + search.timeout;
  std::string problem;
  for (;;) {
    if (std::optional<fs::path> node = TryFindPort(search, problem)) return *node;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(search.poll_interval);
  }
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  throw PortNotFoundError(search.name, waited, problem);
}

OpenPort OpenAgentPort(const PortSearch& search) {
  OpenPort port;
  port.path = FindPort(search);
  port.fd = UniqueFd(::open(port.path.c_str(), O_RDWR | O_CLOEXEC));
  // The kernel lets one process at a time open a virtio port: EBUSY means another agent
  // (started the other way into a foreign guest, qemu-ga or cloud-init) already serves it.
  if (!port.fd && errno == EBUSY)
    throw SystemError("cannot open agent port " + port.path.string() +
                          ": another storbed-agent already serves it",
                      errno);
  if (!port.fd) throw SystemError("cannot open agent port " + port.path.string(), errno);
  return port;
}

}  // namespace storbed::agent

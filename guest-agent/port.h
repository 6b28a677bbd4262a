// Finding and opening the agent's virtio-serial port in a guest. The port's device
// node appears asynchronously (after virtio_console loads and the host side is set
// up), so discovery polls until a deadline.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "errors.h"
#include "unique_fd.h"
#include "protocol.h"

namespace storbed::agent {

// No port with the wanted name showed up before the deadline.
class PortNotFoundError : public AgentError {
 public:
  PortNotFoundError(const std::string& port_name, std::chrono::milliseconds waited,
                    const std::string& last_problem);
  const std::string& port_name() const { return port_name_; }

 private:
  std::string port_name_;
};

struct PortSearch {
  std::string name = kAgentPortName;  // matched against virtio-ports/*/name
  std::filesystem::path sysfs_root = "/sys";
  std::filesystem::path dev_root = "/dev";
  std::chrono::milliseconds timeout{30'000};
  std::chrono::milliseconds poll_interval{50};
};

// One look: the device node of the named port (mknod'ed from the port's `dev` file
// when devtmpfs has not made it yet), or nullopt. `problem` gets why not, when known.
std::optional<std::filesystem::path> TryFindPort(const PortSearch& search, std::string& problem);

// Polls TryFindPort until it succeeds or search.timeout passes. Throws PortNotFoundError.
std::filesystem::path FindPort(const PortSearch& search);

struct OpenPort {
  std::filesystem::path path;
  UniqueFd fd;  // O_RDWR, blocking
};

// FindPort, then opens the node. Throws PortNotFoundError or SystemError.
OpenPort OpenAgentPort(const PortSearch& search = {});

}  // namespace storbed::agent

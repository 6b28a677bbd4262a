// storbed-agent --serve-port: the protocol on the agent's virtio-serial port from an
// ordinary process, for a foreign guest whose own init is PID 1 and which got the agent
// pushed through the QEMU guest agent. The guest's OS stays in charge of its life: at
// `shutdown` the agent acks and exits, and the host stops the machine.
#pragma once

namespace storbed::agent {

// Finds and opens the port (port.h), serves until shutdown, returns the exit code.
// Throws PortNotFoundError or SystemError when there is no port to serve on.
int ServeAgentPort();

}  // namespace storbed::agent

#include "port_mode.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "errors.h"
#include "port.h"
#include "run_agent.h"
#include "server.h"

namespace storbed::agent {

int ServeAgentPort() {
  ::signal(SIGPIPE, SIG_IGN);
  OpenPort port = OpenAgentPort();
  std::fprintf(stderr, "storbed-agent: serving on %s\n", port.path.c_str());
  // RetryLater: a virtio port reads 0 bytes while the host end is not connected.
  LineChannel channel(UniqueFd(::dup(port.fd.get())), "the host (" + port.path.string() + ")",
                      AgentChannelOptions(ZeroRead::RetryLater));
  ServerOptions options;
  options.layer = kGuestLayer;  // the guest's block layer, as under the storbed initramfs
  Server server(std::move(options));
  server.Serve(channel);
  return kExitOk;
}

}  // namespace storbed::agent

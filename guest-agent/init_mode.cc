#include "init_mode.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "pid1.h"
#include "port.h"
#include "server.h"
#include "system_info.h"

namespace storbed::agent {
namespace {

// The console log is the orchestrator's only view of a guest that fails early.
void Say(const std::string& line) { std::fprintf(stderr, "storbed-agent: %s\n", line.c_str()); }

}  // namespace

void RunAsInit() {
  // An exception escaping a noexcept frame would call abort(), and PID 1 dying panics.
  std::set_terminate([] { FatalPowerOff("terminated by an unhandled error"); });

  // The kernel's boot up to here: unpacking the initramfs, its own drivers, exec of /init.
  const double init_start_s = UptimeSeconds();
  std::optional<OpenPort> port;
  try {
    Pid1Setup setup = SetUpPid1();
    for (const std::string& problem : setup.problems) Say(problem);
    Say("loaded " + std::to_string(setup.modules_loaded.size()) + " modules");

    const double port_search_start_s = UptimeSeconds();
    port = OpenAgentPort();
    const double devices_s = UptimeSeconds() - port_search_start_s;
    Say("serving on " + port->path.string());
    // A dup: the port's own fd stays open for FatalPowerOff's last words.
    LineChannel channel(UniqueFd(::dup(port->fd.get())), "the host (" + port->path.string() + ")",
                        AgentChannelOptions(ZeroRead::RetryLater));
    ServerOptions options;
    options.layer = kGuestLayer;
    options.modules_loaded = std::move(setup.modules_loaded);
    options.boot = GuestBoot{
        .init_start_s = init_start_s, .modules_s = setup.modules_s, .devices_s = devices_s};
    Server server(std::move(options));
    // With ZeroRead::RetryLater the port never ends, so this returns on shutdown.
    server.Serve(channel);
    Say("shutdown requested, powering off");
    PowerOff();
  } catch (const std::exception& e) {
    FatalPowerOff(e.what(), port ? port->fd.get() : -1);
  } catch (...) {
    FatalPowerOff("unknown error", port ? port->fd.get() : -1);
  }
}

}  // namespace storbed::agent

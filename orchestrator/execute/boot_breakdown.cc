#include "execute/boot_breakdown.h"

#include <cstdio>

namespace storbed {

BootBreakdown BreakDownBoot(double hello_s, const std::optional<GuestBoot>& guest) {
  BootBreakdown boot;
  boot.hello_s = hello_s;
  if (!guest) return boot;
  // The guest's CLOCK_BOOTTIME runs from the kernel's clock start, so its uptime at the
  // hello is the part of hello_s the guest kernel saw; the rest came before it (or is the
  // reply's trip to the host, a few ms).
  boot.parts = BootBreakdown::Parts{
      .before_kernel_s = hello_s - guest->uptime_s,
      .kernel_to_init_s = guest->init_start_s,
      .modules_s = guest->modules_s,
      .devices_s = guest->devices_s,
      .agent_s = guest->uptime_s - guest->init_start_s - guest->modules_s - guest->devices_s};
  return boot;
}

nlohmann::json BootJson(const BootBreakdown& boot) {
  nlohmann::json j = {{"hello_s", boot.hello_s}};
  if (const auto& p = boot.parts) {
    j["before_kernel_s"] = p->before_kernel_s;
    j["kernel_to_init_s"] = p->kernel_to_init_s;
    j["modules_s"] = p->modules_s;
    j["devices_s"] = p->devices_s;
    j["agent_s"] = p->agent_s;
  }
  return j;
}

std::string DescribeBoot(const BootBreakdown& boot) {
  char text[256];
  if (!boot.parts) {
    std::snprintf(text, sizeof text, "%.2f s to hello (the agent sent no breakdown)", boot.hello_s);
    return text;
  }
  const auto& p = *boot.parts;
  std::snprintf(text, sizeof text,
                "%.2f s to hello (%.2f before the kernel's clock, %.2f kernel to init, %.2f "
                "modules, %.2f devices, %.2f agent)",
                boot.hello_s, p.before_kernel_s, p.kernel_to_init_s, p.modules_s, p.devices_s,
                p.agent_s);
  return text;
}

}  // namespace storbed

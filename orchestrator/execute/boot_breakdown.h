// One guest boot in parts: the host's time from QEMU start to the agent's hello, split by
// what the agent measured inside the guest (protocol.h GuestBoot). The manifest records it
// per machine (machines.<label>.boot) and the run log prints it; docs/boot.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "protocol.h"

namespace storbed {

struct BootBreakdown {
  double hello_s = 0;  // QEMU start to the hello reply, timed by the host
  // Present when the agent reported its boot (it ran as the guest's /init). The parts add
  // up to hello_s.
  struct Parts {
    // Firmware, loading and decompressing the kernel, before the guest's clock starts;
    // also the hello's way to the host: hello_s minus the guest's uptime at the hello.
    double before_kernel_s = 0;
    double kernel_to_init_s = 0;  // the kernel's boot until the agent runs as /init
    double modules_s = 0;         // loading the image's modules
    double devices_s = 0;         // waiting for the agent's virtio-serial port
    double agent_s = 0;           // the agent's other work: mounts, the device list, the reply
  };
  std::optional<Parts> parts;
};

// The breakdown of a boot the host timed at `hello_s`, with the agent's `guest` report.
BootBreakdown BreakDownBoot(double hello_s, const std::optional<GuestBoot>& guest);

// {"hello_s": ..} and, with parts, before_kernel_s, kernel_to_init_s, modules_s, devices_s
// and agent_s.
nlohmann::json BootJson(const BootBreakdown& boot);

// "13.20 s to hello (7.10 before the kernel's clock, 3.00 kernel to init, 0.40 modules,
// 0.20 devices, 0.05 agent)" for the run log.
std::string DescribeBoot(const BootBreakdown& boot);

}  // namespace storbed

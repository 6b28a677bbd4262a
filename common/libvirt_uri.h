// A libvirt connection URI read as text, without libvirt: the run plan, the executor and the
// libvirt backend all ask whether a host is this machine.
#pragma once

#include <string>

namespace storbed {

// True when `uri` reaches a daemon on this machine: no host part (qemu:///system,
// qemu+unix:///system?socket=...), or localhost / 127.x / ::1. Then the QEMU process,
// its files and the host devices can be sampled from /proc and /sys here.
bool UriIsOnThisHost(const std::string& uri);

}  // namespace storbed

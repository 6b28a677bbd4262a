// How samplers reach QMP: one function that runs a command and returns its "return"
// value, throwing QmpError (backend/qmp_client.h) for an error reply. The QEMU backend's
// runs over its own QMP socket, the libvirt backend's through virDomainQemuMonitorCommand;
// tests pass canned replies.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace storbed {

using QmpExecutor =
    std::function<nlohmann::json(const std::string& command, const nlohmann::json& args)>;

}  // namespace storbed

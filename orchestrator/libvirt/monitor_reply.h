// QMP through libvirt (virDomainQemuMonitorCommand): the command text sent and the reply
// text turned into what QmpClient::Execute returns, so samplers see no difference.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace storbed {

// {"execute": command, "arguments": args} (arguments left out when args is empty).
std::string MonitorCommandText(const std::string& command, const nlohmann::json& args);

// The reply's "return" value. Throws QmpError(command, class, desc) for {"error": ...}
// and QmpProtocolError (raw = reply) for text that is neither.
nlohmann::json ParseMonitorReply(const std::string& command, const std::string& reply);

// From query-chardev's return value: whether a process in the guest has the port of the
// chardev `label` open ("frontend-open"). Throws QmpProtocolError when no chardev has that
// label or its entry lacks the field.
bool ChardevFrontendOpen(const nlohmann::json& chardevs, const std::string& label);

}  // namespace storbed

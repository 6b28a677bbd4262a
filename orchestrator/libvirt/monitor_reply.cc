#include "libvirt/monitor_reply.h"

#include "backend/qmp_client.h"
#include "strict_json.h"

namespace storbed {

std::string MonitorCommandText(const std::string& command, const nlohmann::json& args) {
  nlohmann::json msg = {{"execute", command}};
  if (!args.is_null() && !args.empty()) msg["arguments"] = args;
  return msg.dump();
}

nlohmann::json ParseMonitorReply(const std::string& command, const std::string& reply) {
  nlohmann::json j = ParseJsonOrDiscarded(reply);
  if (j.is_discarded() || !j.is_object()) {
    throw QmpProtocolError("QMP reply to " + command + " through libvirt is not a JSON object",
                           reply);
  }
  if (j.contains("return")) return j["return"];
  if (j.contains("error") && j["error"].is_object()) {
    const nlohmann::json& e = j["error"];
    throw QmpError(command, e.value("class", std::string("GenericError")),
                   e.value("desc", std::string("(no description)")));
  }
  throw QmpProtocolError("QMP reply to " + command + " through libvirt has neither return "
                         "nor error",
                         reply);
}

bool ChardevFrontendOpen(const nlohmann::json& chardevs, const std::string& label) {
  if (chardevs.is_array()) {
    for (const nlohmann::json& c : chardevs) {
      if (!c.is_object() || c.value("label", std::string()) != label) continue;
      const auto open = c.find("frontend-open");
      if (open == c.end() || !open->is_boolean()) break;
      return open->get<bool>();
    }
  }
  throw QmpProtocolError("query-chardev lists no chardev " + label + " with a frontend-open flag",
                         chardevs.dump());
}

}  // namespace storbed

// The agent's virtio-serial channel of a libvirt domain as a local socket: a
// non-blocking virStream from virDomainOpenChannel is pumped to and from one end of a
// socketpair on the libvirt event loop thread; the other end goes to AgentLink, so the
// agent protocol code is the same as under the QEMU backend. Works for remote URIs.
#pragma once

#include <libvirt/libvirt.h>

#include <memory>
#include <string>

#include "backend/host_channel.h"

namespace storbed {

class ChannelBridge {
 public:
  // Opens channel `name` (target name or alias) of `domain` and starts pumping. Returns
  // the bridge and, in *agent_end, the socket to hand to AgentLink::FromSocket. Bytes
  // written before the guest opens its port wait in QEMU's chardev socket, as they do
  // under the QEMU backend. Throws LibvirtError naming `uri`, or ChannelError.
  static std::unique_ptr<ChannelBridge> Open(virConnectPtr conn, virDomainPtr domain,
                                             const std::string& uri, const std::string& name,
                                             UniqueFd* agent_end);
  // Stops pumping, aborts the stream and closes the bridge's socket end (the agent end
  // then reads EOF).
  ~ChannelBridge();
  ChannelBridge(const ChannelBridge&) = delete;
  ChannelBridge& operator=(const ChannelBridge&) = delete;

  struct State;

 private:
  explicit ChannelBridge(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace storbed

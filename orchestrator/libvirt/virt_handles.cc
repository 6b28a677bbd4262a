#include "libvirt/virt_handles.h"

#include <libvirt/virterror.h>

#include <cstdlib>
#include <mutex>

#include "libvirt/event_loop.h"

namespace storbed {
namespace {

void IgnoreError(void*, virErrorPtr) {}

}  // namespace

LibvirtError::LibvirtError(std::string uri, std::string operation, std::string message, int code)
    : Error(ErrorKind::Host, "libvirt at " + uri + ": " + operation + ": " + message),
      uri_(std::move(uri)),
      operation_(std::move(operation)),
      message_(std::move(message)),
      code_(code) {}

LastLibvirtError TakeLastLibvirtError() {
  const virError* err = virGetLastError();
  LastLibvirtError last{err ? err->code : 0,
                        err && err->message ? err->message : "unknown error"};
  virResetLastError();
  return last;
}

void ThrowLastLibvirtError(const std::string& uri, const std::string& operation) {
  LastLibvirtError last = TakeLastLibvirtError();
  throw LibvirtError(uri, operation, std::move(last.message), last.code);
}

std::string TakeLibvirtString(char* s) {
  std::string out = s ? s : "";
  std::free(s);
  return out;
}

void SilenceLibvirtErrors() {
  static std::once_flag once;
  std::call_once(once, [] {
    virInitialize();
    virSetErrorFunc(nullptr, IgnoreError);
  });
}

LibvirtConnection LibvirtConnection::Open(const std::string& uri) {
  SilenceLibvirtErrors();
  // Before the connection opens: its socket watch is registered with the loop at open.
  std::shared_ptr<void> loop = LibvirtEventLoop::Acquire();
  virConnectPtr raw = virConnectOpen(uri.c_str());
  if (raw == nullptr) ThrowLastLibvirtError(uri, "cannot connect");
  // The per-connection handler would print again; the thread's last error is enough.
  virConnSetErrorFunc(raw, nullptr, IgnoreError);
  return LibvirtConnection(std::move(loop), std::unique_ptr<virConnect, ConnectCloser>(raw), uri);
}

void LibvirtConnection::Fail(const std::string& operation) const {
  ThrowLastLibvirtError(uri_, operation);
}

}  // namespace storbed

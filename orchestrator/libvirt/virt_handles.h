// RAII over the libvirt C API: connections, domains, streams, pools and volumes are
// released on every path, and a failed call becomes one LibvirtError naming the URI and
// what was being done (libvirt's own printing to stderr is turned off).
#pragma once

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "error.h"

namespace storbed {

// what(): "libvirt at <uri>: <operation>: <libvirt's message>".
class LibvirtError : public Error {
 public:
  LibvirtError(std::string uri, std::string operation, std::string message, int code = 0);
  const std::string& uri() const { return uri_; }
  const std::string& operation() const { return operation_; }
  const std::string& message() const { return message_; }
  int code() const { return code_; }  // virErrorNumber, 0 when unknown

 private:
  std::string uri_, operation_, message_;
  int code_;
};

// This thread's last libvirt error, read and reset: its virErrorNumber (0 when none was
// set) and message ("unknown error" when none).
struct LastLibvirtError {
  int code = 0;
  std::string message;
};
LastLibvirtError TakeLastLibvirtError();

// Throws LibvirtError carrying this thread's last libvirt error.
[[noreturn]] void ThrowLastLibvirtError(const std::string& uri, const std::string& operation);

// A string libvirt allocated, freed; "" for nullptr.
std::string TakeLibvirtString(char* s);

// Stops libvirt printing every error to stderr (once per process): errors reach the user
// once, through LibvirtError.
void SilenceLibvirtErrors();

struct ConnectCloser {
  void operator()(virConnectPtr p) const { virConnectClose(p); }
};
struct DomainFreer {
  void operator()(virDomainPtr p) const { virDomainFree(p); }
};
struct StreamFreer {
  void operator()(virStreamPtr p) const { virStreamFree(p); }
};
struct PoolFreer {
  void operator()(virStoragePoolPtr p) const { virStoragePoolFree(p); }
};
struct VolumeFreer {
  void operator()(virStorageVolPtr p) const { virStorageVolFree(p); }
};
using DomainHandle = std::unique_ptr<virDomain, DomainFreer>;
using StreamHandle = std::unique_ptr<virStream, StreamFreer>;
using PoolHandle = std::unique_ptr<virStoragePool, PoolFreer>;
using VolumeHandle = std::unique_ptr<virStorageVol, VolumeFreer>;

// One open connection. Movable, not copyable; closes on destruction.
class LibvirtConnection {
 public:
  // Opens `uri` read-write, with libvirt's event loop running (libvirt/event_loop.h) so
  // non-blocking streams work. A daemon that is down, refuses or rejects the URI gives one
  // LibvirtError: "libvirt at qemu:///system: cannot connect: <libvirt's reason>".
  static LibvirtConnection Open(const std::string& uri);

  virConnectPtr get() const { return conn_.get(); }
  const std::string& uri() const { return uri_; }
  // Throws LibvirtError for `operation` with this thread's last libvirt error.
  [[noreturn]] void Fail(const std::string& operation) const;

 private:
  LibvirtConnection(std::shared_ptr<void> event_loop,
                    std::unique_ptr<virConnect, ConnectCloser> conn, std::string uri)
      : event_loop_(std::move(event_loop)), conn_(std::move(conn)), uri_(std::move(uri)) {}
  // Declared first: the loop thread stops only after the connection has closed.
  std::shared_ptr<void> event_loop_;
  std::unique_ptr<virConnect, ConnectCloser> conn_;
  std::string uri_;
};

}  // namespace storbed

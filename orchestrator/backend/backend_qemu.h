// The QEMU backend: qemu-system-x86_64 started from an argv (Boost.Process), QMP on a unix
// socket, the agent on a virtio-serial port backed by a unix socket.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "backend/accel.h"
#include "backend/backend.h"

namespace storbed {

class QemuBackend : public Backend {
 public:
  std::string Name() const override { return "qemu"; }
  // Creates spec.run_dir and writes qemu.log (QEMU's stdout/stderr), console.log, the
  // sockets and the pid file there.
  std::unique_ptr<Machine> Start(const MachineSpec& spec,
                                 std::chrono::seconds boot_timeout) override;
};

// First line of `<binary> --version`, e.g. "QEMU emulator version 7.2.22 (Debian ...)".
// Throws std::runtime_error if it cannot be run or fails.
std::string QemuVersionOf(const std::string& binary);

// The last `lines` lines of a text file; "" if it cannot be read.
std::string TailOfFile(const std::string& path, std::size_t lines);

// TailOfFile of a guest console log, with the kernel's panic line put first when the
// panic's stack trace pushed it out of the tail.
std::string ConsoleTailOfFile(const std::string& path, std::size_t lines);

// A KvmGuestProbe for DetectAccel: boots `spec` with accel=kvm on `backend`, waits up to
// `timeout` for the hello and shuts it down. `backend` must outlive the probe.
KvmGuestProbe MakeKvmBootProbe(Backend& backend, MachineSpec spec, std::chrono::seconds timeout);

}  // namespace storbed

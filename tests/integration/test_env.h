// Shared setup for integration tests: the built binaries, a guest image built once
// per test binary, and scratch space on a real block device.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/machine_spec.h"
#include "execute/guest_modules.h"
#include "images/image_builder.h"

namespace storbed {
class ChildProcess;
}

namespace storbed::testing {

// The whole text of a file; "" when it cannot be read.
std::string Slurp(const std::string& path);

// Writes `text` to `path` (replacing it) and returns `path`.
std::string WriteFile(const std::string& path, const std::string& text);

// A results directory's manifest.json, parsed (throws when it is missing or not JSON).
nlohmann::json ManifestOf(const std::string& out_dir);

// How often `needle` occurs in `haystack` (charts in a page, lines in a log).
size_t Occurrences(const std::string& haystack, const std::string& needle);

// How a storbed CLI run ended and what it printed.
struct CliRun {
  std::string exit;  // ChildProcess::ExitDescription
  std::string log;   // stdout + stderr
};

// Runs the storbed CLI with `args`, its output to `log`. `while_running` (if given) gets
// the process once it started; the test fails if it has not ended within `timeout`.
CliRun RunCli(const std::vector<std::string>& args, const std::string& log,
              const std::function<void(ChildProcess&)>& while_running = nullptr,
              std::chrono::minutes timeout = std::chrono::minutes(10));

// Polls `log` until it holds `line` (a run reached that point); false after `timeout`.
bool WaitForLogLine(const std::string& log, const std::string& line,
                    std::chrono::minutes timeout = std::chrono::minutes(5));

std::string AgentPath();
std::string CliPath();
// Scratch directory under /var/tmp (not tmpfs: O_DIRECT and diskstats need a device), named
// with this process's pid: ctest runs VM tests two at a time, and tests of one fixture ask
// for the same name.
std::string ScratchDir(const std::string& name);
// Where SharedGuestImage keeps its image: the CLI tests pass it as --image-cache, so
// every test boots the one image built once.
std::string ImageCacheDir();
// The guest image for this machine's newest kernel with `modules`; empty kernel_path when no
// kernel is installed (tests then skip with the reason in *why). A test that boots a guest
// passes its disks' modules (GuestModulesOf), as `storbed run` would: each module loads at
// every boot, and under TCG every bus's and both filesystems' (the default) took 4.1 s from
// QEMU's start to the modules loaded, virtio's alone 2.45 s (docs/boot.md).
GuestImage SharedGuestImage(std::string* why,
                            const std::vector<std::string>& modules = DefaultGuestModules());
// A small TCG guest of `image` (2 vCPUs, 512 MiB, storbed's kernel command line) with
// its sockets and logs in `run_dir` and no disks yet.
MachineSpec TestGuestSpec(const std::string& name, const GuestImage& image,
                          const std::string& run_dir);

// The pids of qemu-system processes whose command line mentions `needle` (e.g. a test's
// scratch directory), so tests see their own QEMUs and no one else's.
std::vector<int> QemuPidsMentioning(const std::string& needle);

}  // namespace storbed::testing

#include <csignal>

#include "cli/cli.h"

int main(int argc, char** argv) {
  // A write to a peer that died (libvirtd killed mid-run, a QMP or agent socket) must be an
  // EPIPE error the code names, not a SIGPIPE that kills storbed with its QEMU left running
  // (CI: FaultMatrixTest.LibvirtdKilledMidRun... saw "killed by signal 13").
  std::signal(SIGPIPE, SIG_IGN);
  return storbed::RunMain(argc, argv);
}

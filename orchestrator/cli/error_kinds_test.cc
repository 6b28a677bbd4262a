// Every exception class storbed throws is a storbed::Error with the kind its exit code comes
// from: a class that goes back to deriving from std::runtime_error would count as internal.
#include <gtest/gtest.h>

#include <chrono>

#include "backend/accel.h"
#include "backend/agent_entry.h"
#include "backend/agent_link.h"
#include "backend/backend.h"
#include "backend/child_process.h"
#include "backend/interrupt.h"
#include "backend/qemu_argv.h"
#include "backend/qga_client.h"
#include "backend/qmp_client.h"
#include "block_trace_event.h"
#include "error.h"
#include "history/sqlite_db.h"
#include "images/image_error.h"
#include "input_file.h"
#include "io_trace.h"
#include "libvirt/libvirt_stats.h"
#include "libvirt/virt_handles.h"
#include "line_channel.h"
#include "plan/inventory.h"
#include "plan/scheduler.h"
#include "protocol.h"
#include "results/out_dir_claim.h"
#include "results/results_dir.h"
#include "sampling/qemu_threads.h"
#include "sampling/qmp_blockstats.h"
#include "sampling/virtqueue_status.h"
#include "scenario/scenario.h"
#include "tracefs_session.h"
#include "tracing/qemu_trace_log.h"

namespace storbed {
namespace {

template <typename E>
ErrorKind KindThrown(const E& e) {
  try {
    throw e;
  } catch (const std::exception& caught) {
    return KindOf(caught);
  }
}

TEST(ErrorKindsTest, WhatTheHostOrItsProgramsDidIsAHostError) {
  using std::chrono::milliseconds;
  EXPECT_EQ(KindThrown(AccelError("kvm")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(AgentEntryError("entry")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(AgentLinkError("link")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(AgentTimeoutError("run", milliseconds(5))), ErrorKind::Host);
  EXPECT_EQ(KindThrown(AgentSilentError("run", milliseconds(5), 2)), ErrorKind::Host);
  EXPECT_EQ(KindThrown(MachineDiedError("m", "killed", "", "")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(MachineHostLostError("lost")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(MachineStartError("start")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(ChildProcessError("child")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(QgaError("qga")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(QmpError("query-status", "GenericError", "no")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(QmpProtocolError("not qmp", "x")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(QmpConnectionError("closed")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(LibvirtError("qemu:///system", "start", "no")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(LibvirtStatsError("stats")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(HostFailedError("host")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(HostProcParseError("stat", "x")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(BlockstatsError("blockstats", "x")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(VirtqueueError("virtqueue", "x")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(QemuTraceParseError("line")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(BlockTraceParseError("line")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(BlockTraceSetupError("tracefs")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(ChannelError("channel")), ErrorKind::Host);
  EXPECT_EQ(KindThrown(ImageError("/boot/x", "cannot read /boot/x")), ErrorKind::Host);
}

TEST(ErrorKindsTest, StorbedsOwnProtocolAndSpecsAreInternal) {
  EXPECT_EQ(KindThrown(ProtocolError("bad reply", "x")), ErrorKind::Internal);
  EXPECT_EQ(KindThrown(IoTraceChunkError("chunk")), ErrorKind::Internal);
  EXPECT_EQ(KindThrown(MachineSpecError("d0", "bus", "unknown")), ErrorKind::Internal);
}

TEST(ErrorKindsTest, WhatTheUserGaveIsBadInputAndCtrlCIsInterrupted) {
  EXPECT_EQ(KindThrown(ScenarioError("scenario")), ErrorKind::BadInput);
  EXPECT_EQ(KindThrown(InventoryError("inventory")), ErrorKind::BadInput);
  EXPECT_EQ(KindThrown(InputFileError("input")), ErrorKind::BadInput);
  EXPECT_EQ(KindThrown(HistoryError("history")), ErrorKind::BadInput);
  EXPECT_EQ(KindThrown(OutDirError("out")), ErrorKind::BadInput);
  EXPECT_EQ(KindThrown(ResultsFileError("results")), ErrorKind::BadInput);
  EXPECT_EQ(KindThrown(InterruptedError()), ErrorKind::Interrupted);
}

}  // namespace
}  // namespace storbed

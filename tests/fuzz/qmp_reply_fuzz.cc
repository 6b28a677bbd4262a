// What QEMU's monitor sends, through each reader: a QMP socket line (ParseQmpLine), a
// reply relayed by libvirt (ParseMonitorReply), query-blockstats and
// x-query-virtio-queue-status replies. Each returns or throws its own typed error, which
// the samplers turn into "not available: <reason>" and the raw text beside the results.
#include <nlohmann/json.hpp>

#include "backend/qmp_client.h"
#include "fuzz_text.h"
#include "libvirt/monitor_reply.h"
#include "sampling/qmp_blockstats.h"
#include "sampling/virtqueue_status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = storbed::fuzz::Text(data, size);
  try {
    storbed::ParseQmpLine(text);
  } catch (const storbed::QmpProtocolError&) {
  }
  nlohmann::json value;
  try {
    value = storbed::ParseMonitorReply("query-blockstats", text);
  } catch (const storbed::QmpError&) {
  } catch (const storbed::QmpProtocolError&) {
  }
  try {
    storbed::ParseBlockstatsText(text);
  } catch (const storbed::BlockstatsError&) {
  }
  try {
    storbed::ParseQueueInuse(value);
  } catch (const storbed::VirtqueueError&) {
  }
  return 0;
}

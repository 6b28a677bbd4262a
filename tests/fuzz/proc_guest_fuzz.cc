// The agent's /proc and /sys readers in the guest (sampler_probes.cc's keys): inflight,
// meminfo, vmstat and /proc/stat. Each returns or throws ProcParseError, which stops that
// probe with a warning.
#include "fuzz_text.h"
#include "proc_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace storbed;
  const std::string text = fuzz::Text(data, size);
  const auto parse = [](auto&& f) {
    try {
      f();
    } catch (const ProcParseError&) {
    }
  };
  parse([&] { ParseInflight(text); });
  parse([&] { ParseMeminfo(text, {"Cached", "Buffers", "Dirty", "Writeback"}); });
  parse([&] { ParseVmstat(text, {"pgpgin", "pgpgout", "pgmajfault"}, {"workingset_refault_file"}); });
  parse([&] { ParseCpuTimes(text); });
  return 0;
}

// fio job files (`storbed run --fio FILE`): an imported scenario or a ScenarioError naming
// the line and option.
#include "fuzz_text.h"
#include "scenario/fio_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    storbed::ImportFio(storbed::fuzz::Text(data, size), "fuzz.fio", {"virtio-blk", "nvme"});
  } catch (const storbed::ScenarioError&) {
  }
  return 0;
}

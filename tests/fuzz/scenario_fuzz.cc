// Scenario files (`storbed run FILE`, `--dry-run`): a Scenario or a ScenarioError, which
// the CLI prints as "storbed: FILE: FIELD: reason" with exit 2.
#include "fuzz_text.h"
#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    storbed::ParseScenario(storbed::fuzz::Text(data, size), "fuzz.json");
  } catch (const storbed::ScenarioError&) {
  }
  return 0;
}

// Inventories (`storbed run --inventory FILE`): hosts, or an InventoryError naming the field;
// then picking hosts by a label taken from the input must also end cleanly.
#include "fuzz_text.h"
#include "plan/inventory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = storbed::fuzz::Text(data, size);
  try {
    const storbed::Inventory inventory = storbed::ParseInventory(text, "fuzz.json");
    storbed::SelectHosts(inventory, inventory.hosts.empty() ? "" : inventory.hosts[0].name);
  } catch (const storbed::InventoryError&) {
  }
  return 0;
}

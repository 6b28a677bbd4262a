// The agent's sysfs readers: the block devices the hello reply lists (ListBlockDevices
// over a private fake /sys/block/vda written from the input), a uevent's DEVNAME and a
// queue/scheduler line. sysfs is the kernel's, but a device's serial, model and VPD page
// come from the (virtual) hardware. None of these may throw.
//
// Input: the files' texts in kFiles' order, separated by NUL bytes (missing ones absent).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "block_tunables.h"
#include "device_info.h"
#include "fuzz_text.h"
#include "target_device.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kFiles[] = {
    "size",  "serial", "device/serial", "device/vpd_pg80", "device/model",
    "queue/logical_block_size", "queue/physical_block_size", "queue/rotational",
    "queue/read_ahead_kb", "queue/nr_requests", "queue/max_sectors_kb", "queue/scheduler",
    "uevent"};

// A private /sys, removed when the fuzzer exits normally.
class FakeSys {
 public:
  FakeSys() {
    std::string pattern = fs::temp_directory_path() / "storbed-sysfs-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    root_ = pattern;
  }
  ~FakeSys() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const fs::path& root() const { return root_; }

  // Rewrites block/vda from the texts; entries past the last text are removed.
  void Fill(const std::vector<std::string>& texts) {
    const fs::path dev = root_ / "block" / "vda";
    std::error_code ec;
    fs::remove_all(dev, ec);
    fs::create_directories(dev / "device");
    fs::create_directories(dev / "queue");
    fs::create_directories(dev / "mq" / "0");
    for (size_t i = 0; i < texts.size() && i < std::size(kFiles); ++i)
      std::ofstream(dev / kFiles[i], std::ios::binary) << texts[i];
  }

 private:
  fs::path root_;
};

std::vector<std::string> SplitAtNul(const std::string& text) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == '\0')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace storbed;
  static FakeSys sys;
  const std::string text = fuzz::Text(data, size);
  const std::vector<std::string> texts = SplitAtNul(text);
  sys.Fill(texts);
  agent::ListBlockDevices(sys.root());
  ParseUeventDevname(texts.back());
  ActiveScheduler(texts.back());
  return 0;
}

#include "cleanup/cleanup_run.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cleanup/cleanup_options.h"
#include "cleanup/test_support.h"

namespace storbed {
namespace {

class FakeScanner : public LeftoverScanner {
 public:
  FakeScanner(std::string scope, std::vector<Leftover> items, bool find_fails = false)
      : scope_(std::move(scope)), items_(std::move(items)), find_fails_(find_fails) {}
  std::string Scope() const override { return scope_; }
  std::vector<Leftover> Find() override {
    if (find_fails_) throw std::runtime_error("cannot connect: daemon is down");
    return items_;
  }
  void Remove(const Leftover& item) override {
    removed.push_back(item.id);
    if (item.id == "stuck") throw std::runtime_error("EBUSY");
  }
  std::vector<std::string> removed;

 private:
  std::string scope_;
  std::vector<Leftover> items_;
  bool find_fails_;
};

Leftover Item(const std::string& id, bool needs_force = false) {
  return Leftover{.kind = LeftoverKind::WorkDir,
                  .id = id,
                  .label = "work dir " + id,
                  .reason = "owner pid 1 gone",
                  .needs_force = needs_force};
}

struct Ran {
  CleanupTally tally;
  std::string out, err;
};

Ran RunWith(CleanupPolicy policy) {
  std::vector<std::unique_ptr<LeftoverScanner>> scanners;
  scanners.push_back(
      std::make_unique<FakeScanner>("libvirt at qemu:///system", std::vector<Leftover>{}, true));
  scanners.push_back(std::make_unique<FakeScanner>(
      "work dirs", std::vector<Leftover>{Item("/a"), Item("stuck"), Item("/b", true)}));
  std::ostringstream out, err;
  Ran ran;
  ran.tally = RunScanners(scanners, policy, out, err);
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

TEST(RunScannersTest, ADownDaemonIsOneLineAndTheOthersStillRun) {
  const Ran ran = RunWith({});
  EXPECT_EQ(ran.out,
            "removed work dir /a (owner pid 1 gone)\n"
            "left alone work dir /b (owner pid 1 gone; --force removes it)\n"
            "cleanup: removed 1 item, left alone 1, 2 failures\n");
  EXPECT_EQ(ran.err,
            "storbed: cleanup: libvirt at qemu:///system: cannot connect: daemon is down\n"
            "storbed: cleanup: cannot remove work dir stuck: EBUSY\n");
  EXPECT_EQ(ran.tally.removed, 1);
  EXPECT_EQ(ran.tally.left_alone, 1);
  EXPECT_EQ(ran.tally.failures, 2);
}

TEST(RunScannersTest, DryRunRemovesNothingAndForceTakesTheRest) {
  std::vector<std::unique_ptr<LeftoverScanner>> scanners;
  auto owned = std::make_unique<FakeScanner>("work dirs",
                                             std::vector<Leftover>{Item("/a"), Item("/b", true)});
  FakeScanner* scanner = owned.get();
  scanners.push_back(std::move(owned));
  std::ostringstream out, err;
  const CleanupTally dry = RunScanners(scanners, {.dry_run = true}, out, err);
  EXPECT_TRUE(scanner->removed.empty());
  EXPECT_EQ(out.str(),
            "would remove work dir /a (owner pid 1 gone)\n"
            "left alone work dir /b (owner pid 1 gone; --force removes it)\n"
            "cleanup: would remove 1 item, left alone 1 (dry run: nothing was changed)\n");
  EXPECT_EQ(dry.failures, 0);

  std::ostringstream out2;
  const CleanupTally forced = RunScanners(scanners, {.force = true}, out2, err);
  EXPECT_EQ(scanner->removed, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(forced.removed, 2);
  EXPECT_EQ(err.str(), "");
}

TEST(InventoryUrisTest, ReadsEveryHostUriAndNamesWhatIsWrong) {
  cleanup_test::FakeHost host;
  const std::string path = host.root() + "/inventory.json";
  cleanup_test::WriteFile(path, R"({"hosts": [{"name": "a", "uri": "qemu:///system"},
                                   {"name": "b", "uri": "qemu+ssh://b/system", "cpus": 4}]})");
  EXPECT_EQ(ReadInventoryUris(path),
            (std::vector<std::string>{"qemu:///system", "qemu+ssh://b/system"}));
  cleanup_test::WriteFile(path, R"({"hosts": [{"name": "a"}]})");
  try {
    ReadInventoryUris(path);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "inventory " + path + ": hosts[0].uri is missing or not a string");
  }
  cleanup_test::WriteFile(path, "{");
  EXPECT_THROW(ReadInventoryUris(path), std::runtime_error);
  EXPECT_THROW(ReadInventoryUris(host.root() + "/none.json"), std::runtime_error);
}

TEST(MakeCleanupScannersTest, LibvirtPerDistinctUriThenTheHostScannersInOrder) {
  cleanup_test::FakeHost host;
  cleanup_test::RecordingActions actions;
  const std::string inventory = host.root() + "/inventory.json";
  cleanup_test::WriteFile(inventory, R"({"hosts": [{"uri": "qemu:///system"},
                                                  {"uri": "qemu+ssh://b/system"}]})");
  CleanupOptions options;
  options.uris = {"qemu:///system"};
  options.inventory = inventory;
  std::vector<std::string> scopes;
  for (const auto& s : MakeCleanupScanners(options, actions)) scopes.push_back(s->Scope());
  EXPECT_EQ(scopes, (std::vector<std::string>{
                        "libvirt at qemu:///system", "libvirt at qemu+ssh://b/system",
                        "QEMU processes", "loop devices", "PCI devices left on vfio-pci",
                        "tunables journals in /var/tmp", "work dirs in /var/tmp", "sockets in "}));
  options.no_libvirt = true;
  EXPECT_EQ(MakeCleanupScanners(options, actions).size(), 6u);
}

class AbsentScanner : public LeftoverScanner {
 public:
  std::string Scope() const override { return "libvirt at qemu:///system"; }
  std::vector<Leftover> Find() override {
    throw ScannerUnavailable("libvirtd is not running (Failed to connect socket: Connection "
                             "refused); its domains and volumes were not checked");
  }
  void Remove(const Leftover&) override {}
};

// Regression: `storbed cleanup` exited 1 whenever libvirtd was not running.
TEST(CleanupRunTest, AnAbsentLibvirtdIsANoteNotAFailure) {
  std::vector<std::unique_ptr<LeftoverScanner>> scanners;
  scanners.push_back(std::make_unique<AbsentScanner>());
  scanners.push_back(std::make_unique<FakeScanner>("work dirs", std::vector<Leftover>{Item("/a")}));
  std::ostringstream out, err;
  const CleanupTally tally = RunScanners(scanners, {}, out, err);
  EXPECT_EQ(tally.failures, 0);
  EXPECT_EQ(tally.removed, 1);
  EXPECT_EQ(err.str(),
            "storbed: cleanup: note: libvirt at qemu:///system: skipped: libvirtd is not running "
            "(Failed to connect socket: Connection refused); its domains and volumes were not "
            "checked\n");
}

}  // namespace
}  // namespace storbed

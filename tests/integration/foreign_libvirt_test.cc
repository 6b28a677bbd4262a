// A foreign guest under the libvirt backend: the Debian 12 image (debian_image.h) booted as
// a transient domain on qemu:///system with its own kernel under TCG, storbed-agent pushed
// in through libvirt's qemu-ga channel (virDomainQemuAgentCommand), a tiny job on
// virtio-blk and NVMe. Skips when libvirtd is not reachable (scripts/start-services.sh).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "backend/child_process.h"
#include "backend/qemu_argv.h"
#include "debian_image.h"
#include "execute/foreign_image.h"
#include "images/file_digest.h"
#include "libvirt/domain_xml.h"
#include "libvirt/virt_handles.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace foreign_libvirt_test {  // named, not anonymous: a unity build joins files

constexpr const char* kUri = "qemu:///system";

// Names of the domains on kUri containing `needle`, active or defined.
std::vector<std::string> DomainsMentioning(LibvirtConnection& conn, const std::string& needle) {
  virDomainPtr* doms = nullptr;
  const int n = virConnectListAllDomains(conn.get(), &doms, 0);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    const std::string name = virDomainGetName(doms[i]);
    if (name.find(needle) != std::string::npos) names.push_back(name);
    virDomainFree(doms[i]);
  }
  free(doms);
  return names;
}

// Names of the volumes of pool storbed containing `needle`.
std::vector<std::string> VolumesMentioning(LibvirtConnection& conn, const std::string& needle) {
  std::vector<std::string> names;
  PoolHandle pool(virStoragePoolLookupByName(conn.get(), "storbed"));
  if (!pool) return names;
  virStoragePoolRefresh(pool.get(), 0);
  virStorageVolPtr* vols = nullptr;
  const int n = virStoragePoolListAllVolumes(pool.get(), &vols, 0);
  for (int i = 0; i < n; ++i) {
    const std::string name = virStorageVolGetName(vols[i]);
    if (name.find(needle) != std::string::npos) names.push_back(name);
    virStorageVolFree(vols[i]);
  }
  free(vols);
  return names;
}

std::optional<LibvirtConnection> Connect(std::string* why) {
  try {
    return LibvirtConnection::Open(kUri);
  } catch (const LibvirtError& e) {
    *why = std::string("libvirtd not reachable (scripts/start-services.sh starts it): ") + e.what();
    return std::nullopt;
  }
}

// `storbed run --backend libvirt` of a tiny random-read job in the image of `image_dir` on
// `targets` with `push`, checked (testing::RunForeignScenario), and that the work dir is
// left empty; returns the manifest. The scenario name (for the leftover checks) goes to
// *scenario_name.
nlohmann::json RunUnderLibvirt(const std::string& dir, const std::string& image_dir,
                               const std::string& push, const std::vector<std::string>& targets,
                               std::string* scenario_name) {
  *scenario_name = "fgnlv" + std::to_string(::getpid()) + push.substr(0, 2);
  const nlohmann::json scenario =
      testing::ForeignImageScenario(*scenario_name, image_dir, push, targets);
  const std::string work = dir + "/work";
  std::filesystem::create_directories(work);
  const nlohmann::json manifest = testing::RunForeignScenario(
      dir, scenario, targets, {"--work-dir", work, "--backend", "libvirt"});
  // Nothing left: no overlay, seed or other work files.
  EXPECT_TRUE(std::filesystem::is_empty(work));
  return manifest;
}

TEST(ForeignLibvirtTest, DebianImageWithQgaPushThroughLibvirtRunsOnVirtioBlkAndNvme) {
  std::string why;
  std::optional<LibvirtConnection> conn = Connect(&why);
  if (!conn) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("foreign-libvirt");
  // cloud-init off, as in ForeignImageTest's qga test: qemu-ga is the way in, and the boot
  // is 12 s shorter.
  const std::string image_dir =
      testing::CachedDebianImageDir(dir, {"--cloud-init"}, &why, {"--disable-cloud-init"});
  ASSERT_FALSE(image_dir.empty()) << why;
  const std::string image = image_dir + "/debian12.qcow2";
  const std::string sha_before = FileSha256(image);
  struct stat owner_before {};
  ASSERT_EQ(::stat(image.c_str(), &owner_before), 0);

  std::string scenario_name;
  const auto manifest = RunUnderLibvirt(dir, image_dir, "qga", {"virtio-blk", "nvme"}, &scenario_name);
  for (const char* label : {"virtio-blk", "nvme"}) {
    SCOPED_TRACE(label);
    const nlohmann::json& m = manifest["machines"][label];
    EXPECT_EQ(m["backend"], "libvirt") << m.dump(2);
    EXPECT_EQ(m["agent_push"]["path"], "qga") << m.dump(2);
    EXPECT_GT(m["agent_push"]["bytes"].get<uint64_t>(), 0u);
    EXPECT_GT(m["agent_push"]["guest_pid"].get<int64_t>(), 0);
    EXPECT_EQ(m["image"]["sha256_after"], sha_before);
    EXPECT_EQ(m["image"]["unchanged"], true);
    EXPECT_EQ(m["guest_kernel"], testing::TrimmedLine(testing::Slurp(image_dir + "/kernel-release")));
    EXPECT_EQ(m["guest_facts"]["os_version_id"], "12");
    // The agent saw the disk under test (and only it) by its serial, beside the root disk.
    ASSERT_EQ(m["guest_facts"]["benchmark_disks"].size(), 1u) << m["guest_facts"].dump();
    std::cout << label << ": boot to hello " << m["boot_s"] << " s, qemu-ga ready after "
              << m["agent_push"]["qga_ready_s"] << " s, agent copy " << m["agent_push"]["copy_s"]
              << " s\n";
  }
  // The image was only read: same bytes and same owner (libvirt's DAC driver would have
  // chowned it to libvirt-qemu as the overlay's backing).
  EXPECT_EQ(FileSha256(image), sha_before);
  struct stat owner_after {};
  ASSERT_EQ(::stat(image.c_str(), &owner_after), 0);
  EXPECT_EQ(owner_after.st_uid, owner_before.st_uid);
  EXPECT_EQ(owner_after.st_gid, owner_before.st_gid);
  EXPECT_EQ(owner_after.st_mode, owner_before.st_mode);
  // Nothing left: no domain, no QEMU, no pool volume.
  EXPECT_TRUE(DomainsMentioning(*conn, scenario_name).empty());
  EXPECT_TRUE(VolumesMentioning(*conn, scenario_name).empty());
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

// The cloud-init way under libvirt: no qemu-ga channel in the domain, the NoCloud seed and
// the agent's disk as two more read-only disks, cloud-init starts the agent.
TEST(ForeignLibvirtTest, CloudInitPutsTheAgentInUnderLibvirt) {
  std::string why;
  std::optional<LibvirtConnection> conn = Connect(&why);
  if (!conn) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("foreign-libvirt-cloud-init");
  const std::string image_dir = testing::CachedDebianImageDir(dir, {"--cloud-init"}, &why);
  ASSERT_FALSE(image_dir.empty()) << why;
  const std::string sha_before = FileSha256(image_dir + "/debian12.qcow2");
  std::string scenario_name;
  const auto manifest =
      RunUnderLibvirt(dir, image_dir, "cloud-init", {"virtio-blk"}, &scenario_name);
  const nlohmann::json& m = manifest["machines"]["virtio-blk"];
  EXPECT_EQ(m["backend"], "libvirt") << m.dump(2);
  EXPECT_EQ(m["agent_push"]["path"], "cloud-init") << m.dump(2);
  EXPECT_EQ(m["agent_push"]["not_qga"], "the machine has no QEMU guest agent channel");
  EXPECT_EQ(m["image"]["unchanged"], true);
  EXPECT_EQ(FileSha256(image_dir + "/debian12.qcow2"), sha_before);
  EXPECT_TRUE(DomainsMentioning(*conn, scenario_name).empty());
  EXPECT_TRUE(VolumesMentioning(*conn, scenario_name).empty());
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

// libvirt's schema and daemon take the foreign domain as written: boot from the image's
// own bootloader, the qemu-ga channel and the cloud-init disks, beside an NVMe disk.
TEST(ForeignLibvirtTest, AForeignDomainIsAcceptedByLibvirtsSchemaAndDaemon) {
  std::string why;
  std::optional<LibvirtConnection> conn = Connect(&why);
  if (!conn) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("foreign-libvirt-xml");
  MachineSpec spec;
  spec.name = "fgnxml";
  spec.run_dir = dir;
  spec.foreign = ForeignRoot{.overlay = dir + "/root-overlay.qcow2",
                             .agent_binary = testing::AgentPath(),
                             .push = AgentPushWay::Auto,
                             .seed_image = dir + "/seed.iso",
                             .agent_disk = dir + "/agent.raw"};
  for (Bus bus : {Bus::VirtioBlk, Bus::Nvme}) {
    DiskSpec disk;
    disk.id = bus == Bus::Nvme ? "n0" : "v0";
    disk.bus = bus;
    disk.backing = dir + "/" + disk.id + ".raw";
    spec.disks.push_back(disk);
  }
  DomainPlacement place;
  place.domain_name = DomainName("t" + std::to_string(::getpid()), spec.name);
  for (const DiskSpec& d : spec.disks) place.disk_paths.push_back(d.backing);
  place.console_path = dir + "/console.log";
  place.owner = {.session = "t", .pid = ::getpid(), .host = "test", .started = "now"};
  const std::string xml_path = dir + "/domain.xml";
  std::ofstream(xml_path) << BuildDomainXml(spec, place);
  ChildProcess validate =
      ChildProcess::Start({"virt-xml-validate", xml_path, "domain"}, dir + "/validate.log");
  ASSERT_TRUE(validate.WaitFor(std::chrono::seconds(30)));
  EXPECT_TRUE(validate.ExitedSuccessfully()) << testing::Slurp(dir + "/validate.log");
  virDomainPtr defined = virDomainDefineXML(conn->get(), testing::Slurp(xml_path).c_str());
  ASSERT_NE(defined, nullptr) << virGetLastErrorMessage();
  const std::string desc = TakeLibvirtString(virDomainGetXMLDesc(defined, VIR_DOMAIN_XML_INACTIVE));
  virDomainUndefine(defined);
  virDomainFree(defined);
  EXPECT_NE(desc.find("<boot order='1'/>"), std::string::npos) << desc;
  EXPECT_NE(desc.find("name='org.qemu.guest_agent.0'"), std::string::npos) << desc;
  EXPECT_NE(desc.find("<serial>storbed-agentbin</serial>"), std::string::npos) << desc;
  EXPECT_TRUE(DomainsMentioning(*conn, place.domain_name).empty());
}

}  // namespace foreign_libvirt_test
}  // namespace storbed

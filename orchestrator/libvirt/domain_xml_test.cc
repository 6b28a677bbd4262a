#include "libvirt/domain_xml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backend/qemu_argv.h"
#include "libvirt/backend_libvirt.h"

namespace storbed {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

MachineSpec Spec() {
  MachineSpec s;
  s.name = "m1";
  s.vcpus = 3;
  s.memory_mib = 768;
  s.kernel = "/local/vmlinuz";
  s.initrd = "/local/initrd";
  s.cmdline = "console=ttyS0 panic=-1";
  s.run_dir = "/tmp/run";
  DiskSpec d;
  d.id = "d0";
  d.backing = "/data/backing.raw";
  d.serial = "SER0";
  s.disks.push_back(d);
  return s;
}

DomainPlacement Place(const MachineSpec& s) {
  DomainPlacement p;
  p.domain_name = DomainName("sess1", s.name);
  p.kernel = "/pool/vmlinuz-1";
  p.initrd = "/pool/initrd-1";
  for (const DiskSpec& d : s.disks) p.disk_paths.push_back("/host" + d.backing);
  p.console_path = "/pool/" + p.domain_name + ".console.log";
  p.owner = {.session = "sess1", .pid = 4242, .host = "box", .started = "2024-05-01T12:00:00Z"};
  return p;
}

std::string Xml(const MachineSpec& s) { return BuildDomainXml(s, Place(s)); }

TEST(DomainXmlTest, MachineMapsToQ35DirectBootThatEndsOnReboot) {
  const std::string x = Xml(Spec());
  EXPECT_THAT(x, HasSubstr("<domain type='qemu'"));
  EXPECT_THAT(x, HasSubstr("<name>storbed-sess1-m1</name>"));
  EXPECT_THAT(x, HasSubstr("<memory unit='MiB'>768</memory>"));
  EXPECT_THAT(x, HasSubstr("<vcpu>3</vcpu>"));
  EXPECT_THAT(x, HasSubstr("machine='q35'"));
  EXPECT_THAT(x, HasSubstr("<kernel>/pool/vmlinuz-1</kernel>"));
  EXPECT_THAT(x, HasSubstr("<initrd>/pool/initrd-1</initrd>"));
  EXPECT_THAT(x, HasSubstr("<cmdline>console=ttyS0 panic=-1</cmdline>"));
  EXPECT_THAT(x, HasSubstr("<on_reboot>destroy</on_reboot>"));
  EXPECT_THAT(x, HasSubstr("<on_crash>destroy</on_crash>"));
  EXPECT_THAT(x, HasSubstr("<cpu mode='maximum'"));
  EXPECT_THAT(x, HasSubstr("<serial type='file'>\n      <source path='/pool/storbed-sess1-m1.console.log'/>"));
  EXPECT_THAT(x, HasSubstr("<target type='virtio' name='org.storbed.agent.0'/>"));
  EXPECT_THAT(x, Not(HasSubstr("<emulator>")));  // qemu_binary is a bare name: host default
}

TEST(DomainXmlTest, KvmGetsKvmDomainAndHostCpu) {
  MachineSpec s = Spec();
  s.accel = Accel::Kvm;
  s.qemu_binary = "/usr/bin/qemu-system-x86_64";
  const std::string x = Xml(s);
  EXPECT_THAT(x, HasSubstr("<domain type='kvm'"));
  EXPECT_THAT(x, HasSubstr("<cpu mode='host-passthrough'"));
  EXPECT_THAT(x, HasSubstr("<emulator>/usr/bin/qemu-system-x86_64</emulator>"));
}

TEST(DomainXmlTest, VirtioDiskCarriesEveryOption) {
  MachineSpec s = Spec();
  DiskSpec& d = s.disks[0];
  d.format = "qcow2";
  d.aio = Aio::IoUring;
  d.num_queues = 4;
  d.queue_size = 128;
  d.iothread = true;
  d.request_merging = false;
  const std::string x = Xml(s);
  EXPECT_THAT(x, HasSubstr("<driver name='qemu' type='qcow2' cache='none' io='io_uring' "
                           "queues='4' queue_size='128' iothread='1'/>"));
  EXPECT_THAT(x, HasSubstr("<iothreads>1</iothreads>"));
  EXPECT_THAT(x, HasSubstr("<source file='/host/data/backing.raw'/>"));
  EXPECT_THAT(x, HasSubstr("<target dev='vda' bus='virtio'/>"));
  EXPECT_THAT(x, HasSubstr("<serial>SER0</serial>"));
  EXPECT_THAT(x, HasSubstr("<alias name='ua-d0'/>"));
  EXPECT_THAT(x, HasSubstr("<qemu:device alias='ua-d0'>"));
  EXPECT_THAT(x, HasSubstr("name='request-merging' type='bool' value='false'"));
  EXPECT_THAT(x, Not(HasSubstr("<seclabel")));  // libvirt relabels the disks it knows
}

TEST(DomainXmlTest, IothreadsAreNumberedPerDisk) {
  MachineSpec s = Spec();
  s.disks[0].iothread = true;
  DiskSpec d1 = s.disks[0];
  d1.id = "d1";
  s.disks.push_back(d1);
  const std::string x = Xml(s);
  EXPECT_THAT(x, HasSubstr("<iothreads>2</iothreads>"));
  EXPECT_THAT(x, HasSubstr("iothread='1'"));
  EXPECT_THAT(x, HasSubstr("iothread='2'"));
  EXPECT_THAT(x, HasSubstr("<target dev='vdb' bus='virtio'/>"));
  EXPECT_EQ(TargetDev(s, s.disks[1]), "vdb");
}

TEST(DomainXmlTest, CacheAndNoFlushMapToLibvirtCacheModes) {
  MachineSpec s = Spec();
  DiskSpec& d = s.disks[0];
  d.aio = Aio::Threads;
  d.cache = CacheMode::None;
  EXPECT_THAT(Xml(s), HasSubstr("cache='none'"));
  d.cache = CacheMode::Writeback;
  EXPECT_THAT(Xml(s), HasSubstr("cache='writeback'"));
  d.no_flush = true;
  EXPECT_THAT(Xml(s), HasSubstr("cache='unsafe'"));
}

TEST(DomainXmlTest, CacheNoneWithNoFlushIsRefusedNamingTheField) {
  MachineSpec s = Spec();
  s.disks[0].cache = CacheMode::None;
  s.disks[0].no_flush = true;
  try {
    Xml(s);
    FAIL() << "expected MachineSpecError";
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.disk_id(), "d0");
    EXPECT_EQ(e.field(), "no_flush");
    EXPECT_THAT(e.what(), HasSubstr("cannot be expressed in libvirt"));
  }
}

TEST(DomainXmlTest, QemuRulesStillApply) {
  MachineSpec s = Spec();
  s.disks[0].aio = Aio::Native;
  s.disks[0].cache = CacheMode::Writeback;
  EXPECT_THROW(Xml(s), MachineSpecError);
}

TEST(DomainXmlTest, DotInVirtioDiskIdIsRefusedBecauseAliasesForbidIt) {
  MachineSpec s = Spec();
  s.disks[0].id = "d.0";
  try {
    Xml(s);
    FAIL() << "expected MachineSpecError";
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.field(), "id");
  }
}

TEST(DomainXmlTest, NvmeGoesOnTheQemuCommandLineAsQemuArgvWritesIt) {
  MachineSpec s = Spec();
  DiskSpec& d = s.disks[0];
  d.bus = Bus::Nvme;
  d.aio = Aio::IoUring;
  d.nvme_max_ioqpairs = 4;
  const std::string x = Xml(s);
  EXPECT_THAT(x, Not(HasSubstr("<disk ")));
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='-blockdev'/>"));
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='driver=file,node-name=file-d0,filename=/host/data/"
                           "backing.raw,aio=io_uring,cache.direct=on,cache.no-flush=off'/>"));
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='driver=raw,node-name=disk-d0,file=file-d0'/>"));
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='nvme,drive=disk-d0,id=dev-d0,serial=SER0,"
                           "max_ioqpairs=4,bus=pcie.0,addr=0x10'/>"));
  // libvirt does not relabel files it does not know: this QEMU runs as root.
  EXPECT_THAT(x, HasSubstr("<seclabel type='static' model='dac' relabel='no'><label>+0:+0</label>"));
  EXPECT_EQ(LibvirtDeviceId(d), "dev-d0");
  EXPECT_EQ(TargetDev(s, d), "");
}

// A passed-through controller is a <hostdev> libvirt knows (so it hands QEMU the VFIO group
// and raises its locked-memory limit), unmanaged: storbed has bound it to vfio-pci itself.
TEST(DomainXmlTest, APassedThroughControllerIsAnUnmanagedHostdev) {
  MachineSpec s = Spec();
  DiskSpec& d = s.disks[0];
  d.bus = Bus::Nvme;
  d.backing = "";
  d.vfio_host = "0000:3a:1f.7";
  DomainPlacement p = Place(s);
  p.disk_paths = {""};
  const std::string x = BuildDomainXml(s, p);
  EXPECT_THAT(x, HasSubstr("    <hostdev mode='subsystem' type='pci' managed='no'>\n"
                           "      <driver name='vfio'/>\n"
                           "      <source>\n"
                           "        <address domain='0x0000' bus='0x3a' slot='0x1f' "
                           "function='0x7'/>\n"
                           "      </source>\n"
                           "      <alias name='ua-d0'/>\n"
                           "    </hostdev>\n"));
  EXPECT_THAT(x, Not(HasSubstr("<disk ")));
  EXPECT_THAT(x, Not(HasSubstr("<qemu:commandline>")));
  EXPECT_THAT(x, Not(HasSubstr("vfio-pci")));
  EXPECT_FALSE(OnQemuCommandline(d));
  EXPECT_TRUE(IsHostdev(d));
  EXPECT_EQ(TargetDev(s, d), "");
  // A bad address is refused as BuildQemuArgv refuses it.
  d.vfio_host = "03:00.0";
  EXPECT_THROW(BuildDomainXml(s, p), MachineSpecError);
}

TEST(DomainXmlTest, VirtioScsiGoesOnTheCommandLineWithItsControllerPinned) {
  MachineSpec s = Spec();
  DiskSpec& d = s.disks[0];
  d.bus = Bus::VirtioScsi;
  d.iothread = true;
  const std::string x = Xml(s);
  EXPECT_THAT(x, Not(HasSubstr("<disk ")));
  EXPECT_THAT(x, Not(HasSubstr("<iothreads>")));  // the -object comes with the disk's args
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='iothread,id=io-d0'/>"));
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='virtio-scsi-pci,id=dev-d0-scsi,num_queues=1,"
                           "virtqueue_size=256,iothread=io-d0,bus=pcie.0,addr=0x10'/>"));
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='scsi-hd,bus=dev-d0-scsi.0,drive=disk-d0,id=dev-d0,"
                           "serial=SER0'/>"));
  EXPECT_EQ(LibvirtDeviceId(d), "dev-d0");
}

TEST(DomainXmlTest, NullCoOnVirtioBlkGoesOnTheCommandLineAndVirtioDisksStillCountFromVda) {
  MachineSpec s = Spec();
  DiskSpec null = s.disks[0];
  null.id = "n0";
  null.driver = "null-co";
  null.backing = "";
  null.null_size = 1 << 20;
  null.null_latency_ns = 1000;
  s.disks.insert(s.disks.begin(), null);
  const std::string x = Xml(s);
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='driver=null-co,node-name=file-n0,size=1048576,"
                           "latency-ns=1000,read-zeroes=on'/>"));
  EXPECT_THAT(x, HasSubstr("virtio-blk-pci,drive=disk-n0,id=dev-n0"));
  EXPECT_EQ(TargetDev(s, s.disks[1]), "vda");  // the first disk libvirt knows
  EXPECT_EQ(TargetDev(s, s.disks[0]), "");
  // A cache mode libvirt cannot express is fine on the command line.
  s.disks[0].no_flush = true;
  EXPECT_NO_THROW(Xml(s));
}

TEST(DomainXmlTest, NvmeArgsAreExactlyQemuArgvsDiskArgs) {
  DiskSpec d;
  d.id = "n1";
  d.bus = Bus::Nvme;
  d.backing = "/b,with,commas";
  const std::vector<std::string> args = DiskArgv(d);
  ASSERT_EQ(args.size(), 6u);
  EXPECT_EQ(args[0], "-blockdev");
  EXPECT_THAT(args[1], HasSubstr("filename=/b,,with,,commas"));
  EXPECT_EQ(args[4], "-device");
}

TEST(DomainXmlTest, ValuesAreEscaped) {
  MachineSpec s = Spec();
  s.cmdline = "a<b & c='d'";
  EXPECT_THAT(Xml(s), HasSubstr("<cmdline>a&lt;b &amp; c=&#39;d&#39;</cmdline>"));
}

TEST(DomainXmlTest, DomainNameIsPrefixSessionAndMachine) {
  EXPECT_EQ(DomainName("20240501-1200-77", "virtio-blk"),
            std::string(kDomainPrefix) + "20240501-1200-77-virtio-blk");
  EXPECT_THROW(DomainName("bad/session", "m"), MachineSpecError);
  EXPECT_THROW(DomainName("s", "bad name"), MachineSpecError);
  EXPECT_THROW(DomainName("", "m"), MachineSpecError);
}

TEST(DomainXmlTest, OwnerRoundTripsThroughTheXml) {
  const std::optional<DomainOwner> o = OwnerOf(Xml(Spec()));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->session, "sess1");
  EXPECT_EQ(o->pid, 4242);
  EXPECT_EQ(o->host, "box");
  EXPECT_EQ(o->started, "2024-05-01T12:00:00Z");
}

TEST(DomainXmlTest, OwnerIsReadFromLibvirtsReserialisedMetadata) {
  // As `virsh dumpxml` prints it: double quotes, the namespace declared after the attributes.
  const std::string live = R"(<domain type="qemu" id="7"><name>storbed-x-m</name>
  <metadata>
    <storbed:run xmlns:storbed="https://storbed.dev/xmlns/run/1" session="x" pid="17" host="h&amp;1" started="2024-01-01T00:00:00Z"/>
  </metadata></domain>)";
  const auto o = OwnerOf(live);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->session, "x");
  EXPECT_EQ(o->pid, 17);
  EXPECT_EQ(o->host, "h&1");
}

// Regression: the owner was read from the element around the first occurrence of the
// namespace URI, so a description quoting it hid the owner (expected: session "x", buggy:
// nullopt).
TEST(DomainXmlTest, OwnerIsFoundWhenTheNamespaceUriAppearsEarlierInTheXml) {
  const auto o = OwnerOf(R"(<domain><name>n</name>
  <description>owner in https://storbed.dev/xmlns/run/1</description>
  <metadata><s:run xmlns:s="https://storbed.dev/xmlns/run/1" session="x" pid="3"/></metadata>
</domain>)");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->session, "x");
  EXPECT_EQ(o->pid, 3);
}

// Regression: attributes were cut at the first '>' (legal inside a value) and character
// references stayed undecoded (expected: host "a>b&c'd", session "s"; buggy: no owner).
TEST(DomainXmlTest, OwnerValuesInEitherQuoteWithReferencesAndAGreaterThanAreDecoded) {
  const auto o = OwnerOf(
      "<domain><metadata><storbed:run xmlns:storbed='https://storbed.dev/xmlns/run/1' "
      "host=\"a>b&#38;c'd\" started='say \"t&apos;\"' session='s' pid='9'/></metadata></domain>");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->host, "a>b&c'd");
  EXPECT_EQ(o->started, "say \"t'\"");
  EXPECT_EQ(o->session, "s");
  EXPECT_EQ(o->pid, 9);
}

TEST(DomainXmlTest, OwnerWithABadPidHasPidZero) {
  const auto o = OwnerOf(
      "<domain><metadata><storbed:run xmlns:storbed='https://storbed.dev/xmlns/run/1' "
      "session='s' pid='x'/></metadata></domain>");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->pid, 0);
}

TEST(DomainXmlTest, DomainMentionsAPathInAnAttributeOrTextDecoded) {
  const std::string xml =
      "<domain><os><kernel>/p/vmlinuz&amp;1</kernel></os><devices><disk><source "
      "file=\"/p/d&apos;0.img\"/></disk></devices><qemu:commandline "
      "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'><qemu:arg "
      "value='file=/p/n&lt;1.img,format=raw'/></qemu:commandline></domain>";
  EXPECT_TRUE(DomainMentions(xml, "/p/vmlinuz&1"));
  EXPECT_TRUE(DomainMentions(xml, "/p/d'0.img"));
  EXPECT_TRUE(DomainMentions(xml, "/p/n<1.img"));
  EXPECT_FALSE(DomainMentions(xml, "/p/d&apos;0.img"));
  EXPECT_FALSE(DomainMentions(xml, "/p/other.img"));
  // XML that cannot be read keeps every volume.
  EXPECT_TRUE(DomainMentions("<domain><disk>", "/p/other.img"));
}

TEST(DomainXmlTest, DomainWithoutOwnerHasNone) {
  EXPECT_FALSE(OwnerOf("<domain><name>other</name></domain>"));
  EXPECT_FALSE(OwnerOf(""));
}

TEST(DomainXmlTest, AhciIsALibvirtSataDiskWithoutVirtioOptions) {
  MachineSpec s = Spec();
  s.disks[0].bus = Bus::Ahci;
  s.disks[0].num_queues = 4;
  const std::string x = Xml(s);
  EXPECT_FALSE(OnQemuCommandline(s.disks[0]));
  EXPECT_THAT(x, HasSubstr("<driver name='qemu' type='raw' cache='none' io='threads'/>"));
  EXPECT_THAT(x, HasSubstr("<target dev='sda' bus='sata'/>"));
  EXPECT_THAT(x, HasSubstr("<serial>SER0</serial>"));
  EXPECT_THAT(x, HasSubstr("<alias name='ua-d0'/>"));
  EXPECT_THAT(x, Not(HasSubstr("queues=")));
  EXPECT_THAT(x, Not(HasSubstr("<qemu:override>")));  // ide-hd has no request-merging
  EXPECT_THAT(x, Not(HasSubstr("<qemu:commandline>")));
}

TEST(DomainXmlTest, SataAndVirtioDisksAreCountedApart) {
  MachineSpec s = Spec();
  DiskSpec d1 = s.disks[0];
  d1.id = "d1";
  d1.bus = Bus::Ahci;
  s.disks.push_back(d1);
  EXPECT_EQ(TargetDev(s, s.disks[0]), "vda");
  EXPECT_EQ(TargetDev(s, s.disks[1]), "sda");
}

TEST(DomainXmlTest, AhciOnNullCoGoesOnTheCommandLineUnpinned) {
  MachineSpec s = Spec();
  s.disks[0].bus = Bus::Ahci;
  s.disks[0].driver = "null-co";
  s.disks[0].backing = "";
  s.disks[0].null_size = 1 << 30;
  const std::string x = Xml(s);
  EXPECT_TRUE(OnQemuCommandline(s.disks[0]));
  // ide-hd is not a PCI function: QEMU places it on a free ich9-ahci port itself.
  EXPECT_THAT(x, HasSubstr("<qemu:arg value='ide-hd,drive=disk-d0,id=dev-d0,serial=SER0'/>"));
}

// A foreign image booted by its own kernel, the QGA way only.
MachineSpec ForeignSpec() {
  MachineSpec s = Spec();
  s.cmdline = "root=LABEL=storbed-root ro console=ttyS0";
  s.foreign = ForeignRoot{.overlay = "/work/storbed-work-x/root-overlay.qcow2",
                          .agent_binary = "/bin/storbed-agent",
                          .push = AgentPushWay::Qga,
                          .seed_image = "",
                          .agent_disk = ""};
  return s;
}

TEST(DomainXmlTest, ForeignRootIsTheOverlayAsVdaAndTheDisksUnderTestFollow) {
  const MachineSpec s = ForeignSpec();
  const std::string x = Xml(s);
  const size_t root = x.find("<source file='/work/storbed-work-x/root-overlay.qcow2'/>");
  const size_t test_disk = x.find("<source file='/host/data/backing.raw'/>");
  ASSERT_NE(root, std::string::npos) << x;
  ASSERT_NE(test_disk, std::string::npos) << x;
  EXPECT_LT(root, test_disk);
  EXPECT_THAT(x, HasSubstr("<driver name='qemu' type='qcow2'/>\n"
                           "      <source file='/work/storbed-work-x/root-overlay.qcow2'/>\n"
                           "      <target dev='vda' bus='virtio'/>\n"
                           "      <serial>storbed-root</serial>\n"));
  EXPECT_EQ(TargetDev(s, s.disks[0]), "vdb");  // libvirt's block stats name it so
  EXPECT_THAT(x, HasSubstr("<target dev='vdb' bus='virtio'/>"));
  // Direct kernel boot: no boot order on the root disk.
  EXPECT_THAT(x, HasSubstr("<kernel>/pool/vmlinuz-1</kernel>"));
  EXPECT_THAT(x, Not(HasSubstr("<boot order=")));
}

TEST(DomainXmlTest, ForeignImageWithoutKernelBootsFromItsRootDisk) {
  MachineSpec s = ForeignSpec();
  s.kernel = s.initrd = s.cmdline = "";
  DomainPlacement p = Place(s);
  p.kernel = p.initrd = "";
  const std::string x = BuildDomainXml(s, p);
  EXPECT_THAT(x, Not(HasSubstr("<kernel>")));
  EXPECT_THAT(x, Not(HasSubstr("<initrd>")));
  EXPECT_THAT(x, HasSubstr("<serial>storbed-root</serial>\n      <boot order='1'/>"));
}

TEST(DomainXmlTest, ForeignImageNeverHasItsBackingChainRelabelled) {
  // DAC would chown the user's image (the overlay's backing) and restore only the overlay.
  EXPECT_THAT(Xml(ForeignSpec()),
              HasSubstr("<seclabel type='static' model='dac' relabel='no'><label>+0:+0</label>"));
}

TEST(DomainXmlTest, QgaChannelOnlyWhenTheAgentMayComeInThroughQga) {
  MachineSpec s = ForeignSpec();
  const std::string qga = "<target type='virtio' name='org.qemu.guest_agent.0'/>";
  EXPECT_THAT(Xml(s), HasSubstr(qga));
  s.foreign->push = AgentPushWay::Auto;
  s.foreign->seed_image = "/w/seed.iso";
  s.foreign->agent_disk = "/w/agent.raw";
  EXPECT_THAT(Xml(s), HasSubstr(qga));
  s.foreign->push = AgentPushWay::CloudInit;
  EXPECT_THAT(Xml(s), Not(HasSubstr(qga)));
  EXPECT_THAT(Xml(Spec()), Not(HasSubstr(qga)));  // storbed's own guest has none
}

TEST(DomainXmlTest, CloudInitDisksAreReadOnlyAfterTheDisksUnderTest) {
  MachineSpec s = ForeignSpec();
  s.foreign->push = AgentPushWay::Auto;
  s.foreign->seed_image = "/w/seed.iso";
  s.foreign->agent_disk = "/w/agent.raw";
  DiskSpec nvme;
  nvme.id = "n0";
  nvme.bus = Bus::Nvme;
  nvme.backing = "/data/n.raw";
  s.disks.push_back(nvme);  // on the command line: takes no vd name
  const std::string x = Xml(s);
  EXPECT_THAT(x, HasSubstr("<source file='/w/seed.iso'/>\n"
                           "      <target dev='vdc' bus='virtio'/>\n"
                           "      <serial>storbed-seed</serial>\n"
                           "      <readonly/>"));
  EXPECT_THAT(x, HasSubstr("<source file='/w/agent.raw'/>\n"
                           "      <target dev='vdd' bus='virtio'/>\n"
                           "      <serial>storbed-agentbin</serial>\n"
                           "      <readonly/>"));
  EXPECT_LT(x.find("/host/data/backing.raw"), x.find("/w/seed.iso"));
  EXPECT_LT(x.find("/w/seed.iso"), x.find("/w/agent.raw"));
}

TEST(DomainXmlTest, DevNameCountsAsLibvirtDoes) {
  EXPECT_EQ(DevName("vd", 0), "vda");
  EXPECT_EQ(DevName("vd", 25), "vdz");
  EXPECT_EQ(DevName("vd", 26), "vdaa");
  EXPECT_EQ(DevName("sd", 1), "sdb");
}

}  // namespace
}  // namespace storbed

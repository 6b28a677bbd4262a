#include "backend/qemu_argv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace storbed {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

MachineSpec BaseSpec() {
  MachineSpec m;
  m.name = "t1";
  m.vcpus = 2;
  m.memory_mib = 512;
  m.accel = Accel::Tcg;
  m.kernel = "/img/vmlinuz";
  m.initrd = "/img/initrd.cpio";
  m.cmdline = "console=ttyS0 quiet";
  m.run_dir = "/run/x";
  return m;
}

// GCC 12 -Wextra warns about members a designated initializer leaves out, so the
// tests edit a default DiskSpec instead.
DiskSpec Disk(const std::string& id, const std::function<void(DiskSpec&)>& edit = nullptr) {
  DiskSpec d;
  d.id = id;
  d.backing = "/a";
  if (edit) edit(d);
  return d;
}

std::vector<std::string> CommonPrefix(const std::string& accel, const std::string& cpu) {
  return {"qemu-system-x86_64", "-name", "storbed-t1,debug-threads=on",
          "-machine", "q35,accel=" + accel, "-cpu", cpu, "-smp", "2", "-m", "512",
          "-nodefaults", "-no-user-config",
          "-display", "none", "-no-reboot", "-kernel", "/img/vmlinuz", "-initrd",
          "/img/initrd.cpio", "-append", "console=ttyS0 quiet",
          "-chardev", "file,id=console,path=/run/x/console.log", "-serial", "chardev:console",
          "-chardev", "socket,id=agent,path=/run/x/agent.sock,server=on,wait=off",
          "-device", "virtio-serial-pci,id=vser0",
          "-device", "virtserialport,bus=vser0.0,chardev=agent,name=org.storbed.agent.0",
          "-qmp", "unix:/run/x/qmp.sock,server=on,wait=off", "-pidfile", "/run/x/qemu.pid"};
}

TEST(QemuArgvTest, PathsInRunDir) {
  MachinePaths p = PathsIn("/run/x");
  EXPECT_EQ(p.agent_socket, "/run/x/agent.sock");
  EXPECT_EQ(p.qmp_socket, "/run/x/qmp.sock");
  EXPECT_EQ(p.console_log, "/run/x/console.log");
  EXPECT_EQ(p.pid_file, "/run/x/qemu.pid");
}

TEST(QemuArgvTest, VirtioBlkWithIothreadAndIoUring) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.backing = "/data/a.raw";
    d.num_queues = 2;
    d.queue_size = 128;
    d.iothread = true;
    d.aio = Aio::IoUring;
    d.request_merging = false;
    d.serial = "sb-d0";
  }));
  std::vector<std::string> want = CommonPrefix("tcg", "max");
  want.insert(want.end(),
              {"-object", "iothread,id=io-d0",
               "-blockdev", "driver=file,node-name=file-d0,filename=/data/a.raw,aio=io_uring,"
                            "cache.direct=on,cache.no-flush=off",
               "-blockdev", "driver=raw,node-name=disk-d0,file=file-d0",
               "-device", "virtio-blk-pci,drive=disk-d0,id=dev-d0,serial=sb-d0,num-queues=2,"
                          "queue-size=128,request-merging=off,iothread=io-d0"});
  EXPECT_THAT(BuildQemuArgv(m, PathsIn(m.run_dir)), ElementsAreArray(want));
}

TEST(QemuArgvTest, NvmeQcow2WritebackOnKvm) {
  MachineSpec m = BaseSpec();
  m.accel = Accel::Kvm;
  m.disks.push_back(Disk("n0", [](DiskSpec& d) {
    d.bus = Bus::Nvme;
    d.backing = "/data/b,c.qcow2";  // a comma must reach QEMU doubled
    d.format = "qcow2";
    d.cache = CacheMode::Writeback;
    d.nvme_max_ioqpairs = 4;
  }));
  std::vector<std::string> want = CommonPrefix("kvm", "host");
  want.insert(want.end(),
              {"-blockdev", "driver=file,node-name=file-n0,filename=/data/b,,c.qcow2,"
                            "aio=threads,cache.direct=off,cache.no-flush=off",
               "-blockdev", "driver=qcow2,node-name=disk-n0,file=file-n0",
               "-device", "nvme,drive=disk-n0,id=dev-n0,serial=n0,max_ioqpairs=4"});
  EXPECT_THAT(BuildQemuArgv(m, PathsIn(m.run_dir)), ElementsAreArray(want));
}

TEST(QemuArgvTest, NoInitrdNoCmdlineOmitsThem) {
  MachineSpec m = BaseSpec();
  m.initrd.clear();
  m.cmdline.clear();
  auto argv = BuildQemuArgv(m, PathsIn(m.run_dir));
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "-initrd"), 0);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "-append"), 0);
}

// A traced scenario's machines stamp QEMU's log lines, which the trace events need; others
// keep QEMU's messages as they were.
TEST(QemuArgvTest, TracingStampsQemusLogLines) {
  MachineSpec m = BaseSpec();
  const auto plain = BuildQemuArgv(m, PathsIn(m.run_dir));
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "-msg"), 0);
  m.qemu_trace = true;
  const auto traced = BuildQemuArgv(m, PathsIn(m.run_dir));
  const auto msg = std::find(traced.begin(), traced.end(), "-msg");
  ASSERT_NE(msg, traced.end());
  EXPECT_EQ(*(msg + 1), "timestamp=on");
}

// Expects BuildQemuArgv to throw MachineSpecError naming disk, field and `text`.
void ExpectDiskError(const DiskSpec& disk, const std::string& field, const std::string& text) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(disk);
  try {
    BuildQemuArgv(m, PathsIn(m.run_dir));
    FAIL() << "expected MachineSpecError for " << field;
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.disk_id(), disk.id);
    EXPECT_EQ(e.field(), field);
    EXPECT_THAT(e.what(), HasSubstr("disk \"" + disk.id + "\""));
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(QemuArgvTest, NativeAioNeedsCacheNone) {
  ExpectDiskError(Disk("d", [](DiskSpec& d) {
                    d.aio = Aio::Native;
                    d.cache = CacheMode::Writeback;
                  }),
                  "aio", "QEMU refuses aio=native without cache.direct=on");
}

TEST(QemuArgvTest, IothreadNeedsAVirtioBus) {
  ExpectDiskError(Disk("n", [](DiskSpec& d) {
                    d.bus = Bus::Nvme;
                    d.iothread = true;
                  }),
                  "iothread", "iothread needs a virtio bus");
}

TEST(QemuArgvTest, QueueSizeMustBePowerOfTwo) {
  ExpectDiskError(Disk("d", [](DiskSpec& d) { d.queue_size = 100; }), "queue_size", "power of two");
  ExpectDiskError(Disk("d", [](DiskSpec& d) { d.queue_size = 2048; }), "queue_size", "4 to 1024");
  ExpectDiskError(Disk("d", [](DiskSpec& d) { d.queue_size = 1; }), "queue_size", "power of two");
}

TEST(QemuArgvTest, SerialAtMost20Chars) {
  ExpectDiskError(Disk("d", [](DiskSpec& d) { d.serial = std::string(21, 's'); }), "serial",
                  "longer than 20");
}

TEST(QemuArgvTest, BackingRequired) {
  ExpectDiskError(Disk("d", [](DiskSpec& d) { d.backing.clear(); }), "backing", "is empty");
}

TEST(QemuArgvTest, DuplicateDiskIdsRejected) {
  MachineSpec m = BaseSpec();
  m.disks = {Disk("d"), Disk("d")};
  EXPECT_THROW(BuildQemuArgv(m, PathsIn(m.run_dir)), MachineSpecError);
}

TEST(QemuArgvTest, OverlongSocketPathRejected) {
  MachineSpec m = BaseSpec();
  m.run_dir = "/" + std::string(120, 'r');
  try {
    BuildQemuArgv(m, PathsIn(m.run_dir));
    FAIL();
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.field(), "run_dir");
    EXPECT_EQ(e.disk_id(), "");
  }
}

TEST(QemuArgvTest, DescribeDiskSaysWhatRequestMergingDid) {
  EXPECT_THAT(DescribeDisk(Disk("d", [](DiskSpec& d) { d.request_merging = false; })),
              HasSubstr("request merging off (QEMU request-merging)"));
  EXPECT_THAT(DescribeDisk(Disk("n", [](DiskSpec& d) { d.bus = Bus::Nvme; })),
              HasSubstr("recorded only"));
}

}  // namespace
}  // namespace storbed

namespace storbed {
namespace {

// The argv after the common prefix: the disk's own options.
std::vector<std::string> DiskArgs(const MachineSpec& m) {
  const std::vector<std::string> argv = BuildQemuArgv(m, PathsIn(m.run_dir));
  return {argv.begin() + static_cast<long>(CommonPrefix("tcg", "max").size()), argv.end()};
}

TEST(QemuArgvTest, VirtioScsiGetsItsOwnControllerWithQueuesAndIothread) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.bus = Bus::VirtioScsi;
    d.num_queues = 2;
    d.queue_size = 128;
    d.iothread = true;
    d.serial = "sn0";
  }));
  EXPECT_THAT(DiskArgs(m),
              ElementsAreArray(std::vector<std::string>{
                  "-object", "iothread,id=io-d0",
                  "-blockdev",
                  "driver=file,node-name=file-d0,filename=/a,aio=threads,cache.direct=on,"
                  "cache.no-flush=off",
                  "-blockdev", "driver=raw,node-name=disk-d0,file=file-d0",
                  "-device",
                  "virtio-scsi-pci,id=dev-d0-scsi,num_queues=2,virtqueue_size=128,iothread=io-d0",
                  "-device", "scsi-hd,bus=dev-d0-scsi.0,drive=disk-d0,id=dev-d0,serial=sn0"}));
}

TEST(QemuArgvTest, NullCoHasNoFileAndAddsLatency) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.driver = "null-co";
    d.backing = "";
    d.null_size = 1 << 30;
    d.null_latency_ns = 20000;
  }));
  const auto args = DiskArgs(m);
  ASSERT_GE(args.size(), 2u);
  EXPECT_EQ(args[1], "driver=null-co,node-name=file-d0,size=1073741824,latency-ns=20000,"
                     "read-zeroes=on");
  EXPECT_THAT(DescribeDisk(m.disks[0]), HasSubstr("null-co (no storage; 1073741824 bytes, 20000 ns"));
}

TEST(QemuArgvTest, HostDeviceUsesTheHostDeviceDriver) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.driver = "host_device";
    d.backing = "/dev/nvme0n1";
    d.aio = Aio::Native;
  }));
  EXPECT_EQ(DiskArgs(m)[1], "driver=host_device,node-name=file-d0,filename=/dev/nvme0n1,"
                            "aio=native,cache.direct=on,cache.no-flush=off");
}

TEST(QemuArgvTest, BackingDriverMistakesNameTheField) {
  auto error_for = [](const std::function<void(DiskSpec&)>& edit) {
    MachineSpec m = BaseSpec();
    m.disks.push_back(Disk("d0", edit));
    try {
      BuildQemuArgv(m, PathsIn(m.run_dir));
    } catch (const MachineSpecError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_for([](DiskSpec& d) { d.driver = "nbd"; }),
            "disk \"d0\" field driver: \"nbd\" is not supported; allowed: \"file\", "
            "\"host_device\", \"null-co\"");
  EXPECT_EQ(error_for([](DiskSpec& d) { d.driver = "null-co"; }),
            "disk \"d0\" field null_size: must be set for null-co (the disk's size)");
  EXPECT_EQ(error_for([](DiskSpec& d) {
              d.driver = "null-co";
              d.null_size = 4096;
              d.format = "qcow2";
            }),
            "disk \"d0\" field format: null-co has no data to hold a qcow2 image; use raw");
  EXPECT_EQ(error_for([](DiskSpec& d) {
              d.bus = Bus::VirtioScsi;
              d.queue_size = 100;
            }),
            "disk \"d0\" field queue_size: 100 must be a power of two from 4 to 1024");
}

TEST(QemuArgvTest, AhciIsAnIdeHdOnQ35sBuiltInControllerWithItsSerial) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.bus = Bus::Ahci;
    d.serial = "sn0";
    d.num_queues = 4;  // no queues to set: AHCI's NCQ depth is the device's
  }));
  EXPECT_THAT(DiskArgs(m),
              ElementsAreArray(std::vector<std::string>{
                  "-blockdev",
                  "driver=file,node-name=file-d0,filename=/a,aio=threads,cache.direct=on,"
                  "cache.no-flush=off",
                  "-blockdev", "driver=raw,node-name=disk-d0,file=file-d0",
                  "-device", "ide-hd,drive=disk-d0,id=dev-d0,serial=sn0"}));
  EXPECT_THAT(DescribeDisk(m.disks[0]), HasSubstr("NCQ"));
}

TEST(QemuArgvTest, AhciRefusesAnIothread) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.bus = Bus::Ahci;
    d.iothread = true;
  }));
  try {
    BuildQemuArgv(m, PathsIn(m.run_dir));
    FAIL() << "expected MachineSpecError";
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.field(), "iothread");
    EXPECT_THAT(e.what(), HasSubstr("ahci has none"));
  }
}

TEST(QemuArgvTest, PassthroughIsOneVfioPciDeviceWithoutBlockdevs) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.bus = Bus::Nvme;
    d.backing = "";
    d.vfio_host = "0000:03:00.0";
    d.serial = "S4EWNX0R123456";
  }));
  const auto argv = BuildQemuArgv(m, PathsIn(m.run_dir));
  const std::vector<std::string> tail(argv.end() - 2, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"-device", "vfio-pci,host=0000:03:00.0,id=dev-d0"}));
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "-blockdev"), 0);
  EXPECT_EQ(DescribeDisk(m.disks[0]),
            "d0: nvme passthrough of host PCI device 0000:03:00.0 (vfio-pci; the device's own "
            "queues), serial S4EWNX0R123456");
}

TEST(QemuArgvTest, PassthroughNeedsAPciAddressOnTheNvmeBus) {
  MachineSpec m = BaseSpec();
  m.disks.push_back(Disk("d0", [](DiskSpec& d) {
    d.bus = Bus::VirtioBlk;
    d.vfio_host = "0000:03:00.0";
  }));
  try {
    BuildQemuArgv(m, PathsIn(m.run_dir));
    FAIL() << "expected MachineSpecError";
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.field(), "vfio_host");
    EXPECT_THAT(e.what(), HasSubstr("its bus is nvme, not virtio-blk"));
  }
  m.disks[0].bus = Bus::Nvme;
  m.disks[0].vfio_host = "03:00.0,x-foo=on";
  EXPECT_THROW(BuildQemuArgv(m, PathsIn(m.run_dir)), MachineSpecError);
}

}  // namespace
}  // namespace storbed

namespace storbed {
namespace {

TEST(QemuArgvTest, ForeignRootIsTheFirstDiskBesideTheGuestAgentPort) {
  MachineSpec m = BaseSpec();
  m.kernel = "";  // the image's bootloader
  m.initrd = "";
  m.cmdline = "";
  m.foreign = ForeignRoot{};
  m.foreign->overlay = "/w/root,1.qcow2";
  m.foreign->agent_binary = "/b/storbed-agent";
  m.disks = {Disk("d0")};
  const auto argv = BuildQemuArgv(m, PathsIn("/run/x"));
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "-kernel"), argv.end());
  const auto root = std::find(argv.begin(), argv.end(),
                              "driver=file,node-name=file-root,filename=/w/root,,1.qcow2");
  const auto bench = std::find(argv.begin(), argv.end(), ProtocolNodeOptions(m.disks[0]));
  ASSERT_NE(root, argv.end());
  ASSERT_NE(bench, argv.end());
  EXPECT_LT(root, bench);
  // Boots from that disk: no -kernel.
  EXPECT_NE(std::find(argv.begin(), argv.end(),
                      "virtio-blk-pci,drive=disk-root,id=dev-root,bootindex=0,serial=storbed-root"),
            argv.end());
  // With -kernel, QEMU's kernel loader holds bootindex 0: the root disk takes none.
  m.kernel = "/img/vmlinuz";
  const auto with_kernel = BuildQemuArgv(m, PathsIn("/run/x"));
  EXPECT_NE(std::find(with_kernel.begin(), with_kernel.end(),
                      "virtio-blk-pci,drive=disk-root,id=dev-root,serial=storbed-root"),
            with_kernel.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(),
                      "virtserialport,bus=vser0.0,chardev=qga,name=org.qemu.guest_agent.0"),
            argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(),
                      "socket,id=qga,path=/run/x/qga.sock,server=on,wait=off"),
            argv.end());
}

TEST(QemuArgvTest, TheCloudInitWayAddsItsTwoReadOnlyDisksAfterTheDisksUnderTest) {
  MachineSpec m = BaseSpec();
  m.foreign = ForeignRoot{};
  m.foreign->overlay = "/w/o.qcow2";
  m.foreign->agent_binary = "/b/storbed-agent";
  m.foreign->push = AgentPushWay::CloudInit;
  m.disks = {Disk("d0")};
  EXPECT_THROW(BuildQemuArgv(m, PathsIn("/run/x")), MachineSpecError);  // no seed made
  m.foreign->seed_image = "/w/seed.iso";
  m.foreign->agent_disk = "/w/agent.img";
  const auto argv = BuildQemuArgv(m, PathsIn("/run/x"));
  const auto bench = std::find(argv.begin(), argv.end(), ProtocolNodeOptions(m.disks[0]));
  const auto seed = std::find(argv.begin(), argv.end(),
                              "driver=file,node-name=file-seed,filename=/w/seed.iso,read-only=on");
  const auto agent = std::find(argv.begin(), argv.end(),
                               "virtio-blk-pci,drive=disk-agentbin,id=dev-agentbin,serial=storbed-agentbin");
  ASSERT_NE(seed, argv.end());
  ASSERT_NE(agent, argv.end());
  EXPECT_LT(bench, seed);
  // cloud-init only: no qemu-ga port, so an image's qemu-ga stays idle.
  EXPECT_EQ(std::find(argv.begin(), argv.end(),
                      "virtserialport,bus=vser0.0,chardev=qga,name=org.qemu.guest_agent.0"),
            argv.end());
  m.foreign->push = AgentPushWay::Auto;
  const auto both = BuildQemuArgv(m, PathsIn("/run/x"));
  EXPECT_NE(std::find(both.begin(), both.end(),
                      "virtserialport,bus=vser0.0,chardev=qga,name=org.qemu.guest_agent.0"),
            both.end());
  m.foreign->agent_disk.clear();
  EXPECT_THROW(BuildQemuArgv(m, PathsIn("/run/x")), MachineSpecError);
}

TEST(QemuArgvTest, OnlyAForeignGuestMayHaveNoKernel) {
  MachineSpec m = BaseSpec();
  m.kernel = "";
  EXPECT_THROW(BuildQemuArgv(m, PathsIn("/run/x")), MachineSpecError);
  m.foreign = ForeignRoot{};
  m.foreign->overlay = "/w/o.qcow2";
  try {
    BuildQemuArgv(m, PathsIn("/run/x"));
    FAIL() << "no agent binary accepted";
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.field(), "agent");
  }
}

TEST(QemuArgvTest, AnInitramfsGuestHasNoGuestAgentPort) {
  const auto argv = BuildQemuArgv(BaseSpec(), PathsIn("/run/x"));
  for (const auto& a : argv) EXPECT_EQ(a.find("guest_agent"), std::string::npos) << a;
}

}  // namespace
}  // namespace storbed

// Boots real guests as transient libvirt domains on qemu:///system under TCG, one per bus,
// runs a job with the host samplers, and checks the QEMU command line libvirt built
// against BuildQemuArgv's for the same spec. Skips when libvirtd is not reachable.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "backend/child_process.h"
#include "backend/qemu_argv.h"
#include "ladder.h"
#include "execute/backing.h"
#include "execute/guest_target.h"
#include "libvirt/backend_libvirt.h"
#include "libvirt/domain_xml.h"
#include "libvirt/virt_handles.h"
#include "sampling/clock_sync.h"
#include "sampling/job_sampler.h"
#include "test_env.h"

namespace storbed {
namespace libvirt_backend_test {  // named, not anonymous: a unity build joins files

constexpr const char* kUri = "qemu:///system";

std::string Session() { return "t" + std::to_string(::getpid()); }

// A backend on kUri for this test process's session; nullptr, with the reason in *why,
// when libvirtd cannot be reached (the test then skips).
std::unique_ptr<LibvirtBackend> SystemBackend(bool upload_backings, std::string* why) {
  LibvirtOptions options;
  options.uri = kUri;
  options.session = Session();
  options.upload_local_backings = upload_backings;
  try {
    return std::make_unique<LibvirtBackend>(options);
  } catch (const LibvirtError& e) {
    *why = std::string("libvirtd not reachable (scripts/start-services.sh starts it): ") + e.what();
    return nullptr;
  }
}

// Names of the domains on kUri whose names start with `prefix`, active or not.
std::vector<std::string> DomainsStartingWith(const std::string& prefix) {
  LibvirtConnection conn = LibvirtConnection::Open(kUri);
  virDomainPtr* doms = nullptr;
  const int n = virConnectListAllDomains(conn.get(), &doms, 0);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    const std::string name = virDomainGetName(doms[i]);
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
    virDomainFree(doms[i]);
  }
  free(doms);
  return names;
}

// The options a disk's -blockdev (driver=file) or -device carries, from either QEMU's
// key=value syntax or libvirt's JSON, as "key" -> "value" with booleans as on/off.
using Options = std::map<std::string, std::string>;

void Flatten(const nlohmann::json& j, const std::string& prefix, Options& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix + it.key();
    if (it->is_object()) {
      Flatten(*it, key + ".", out);
    } else if (it->is_boolean()) {
      out[key] = it->get<bool>() ? "on" : "off";
    } else if (it->is_string()) {
      out[key] = it->get<std::string>();
    } else {
      out[key] = it->dump();
    }
  }
}

Options ParseOptions(const std::string& arg) {
  Options out;
  if (!arg.empty() && arg[0] == '{') {
    Flatten(nlohmann::json::parse(arg), "", out);
    return out;
  }
  size_t start = 0;
  bool first = true;
  while (start <= arg.size()) {
    size_t end = arg.find(',', start);
    while (end != std::string::npos && end + 1 < arg.size() && arg[end + 1] == ',')
      end = arg.find(',', end + 2);  // ",," is a literal comma
    if (end == std::string::npos) end = arg.size();
    const std::string item = arg.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      out[first ? "driver" : item] = first ? item : "on";
    } else {
      out[item.substr(0, eq)] = item.substr(eq + 1);
    }
    first = false;
    start = end + 1;
  }
  return out;
}

// The file -blockdev whose filename ends with `file_suffix` and the -device with id
// `device_id`, each as options.
std::pair<Options, Options> DiskOptions(const std::vector<std::string>& argv,
                                        const std::string& file_suffix,
                                        const std::string& device_id) {
  Options file, device;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-blockdev") {
      Options o = ParseOptions(argv[i + 1]);
      const std::string& f = o["filename"];
      if (o["driver"] == "file" && f.size() >= file_suffix.size() &&
          f.compare(f.size() - file_suffix.size(), file_suffix.size(), file_suffix) == 0)
        file = o;
    } else if (argv[i] == "-device") {
      Options o = ParseOptions(argv[i + 1]);
      if (o["id"] == device_id) device = o;
    }
  }
  return {file, device};
}

struct Variant {
  Bus bus;
  bool upload_backing;  // the remote path: the backing travels as a volume
};

class LibvirtBackendTest : public ::testing::TestWithParam<Variant> {};

TEST_P(LibvirtBackendTest, BootsRunsAJobWithSamplersAndMatchesQemuArgv) {
  std::string why;
  const Variant v = GetParam();
  const GuestImage image = testing::SharedGuestImage(&why, GuestModulesOf({v.bus}));
  if (image.kernel_path.empty()) GTEST_SKIP() << "no guest image: " << why;
  const std::unique_ptr<LibvirtBackend> backend = SystemBackend(v.upload_backing, &why);
  if (!backend) GTEST_SKIP() << why;

  const std::string dir = testing::ScratchDir("libvirt-" + ToString(v.bus));
  CreateFilledBacking(dir + "/backing.raw", 32 << 20);
  MachineSpec spec = testing::TestGuestSpec("lv-" + ToString(v.bus), image, dir + "/machine");
  DiskSpec disk;
  disk.id = "d0";
  disk.bus = v.bus;
  disk.backing = dir + "/backing.raw";
  disk.aio = Aio::IoUring;
  disk.serial = kTestDiskSerial;
  disk.num_queues = 2;
  disk.queue_size = 128;
  disk.request_merging = false;
  spec.disks.push_back(disk);

  const std::string domain = std::string(kDomainPrefix) + Session() + "-" + spec.name;
  {
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Machine> m = backend->Start(spec, std::chrono::seconds(180));
    const double boot_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string device;
    for (const auto& d : m->Hello().devices)
      if (d.serial == kTestDiskSerial) device = d.path;
    ASSERT_FALSE(device.empty()) << "the guest has no disk with serial " << kTestDiskSerial;
    EXPECT_EQ(m->DeviceId(disk), OnQemuCommandline(disk) ? "dev-d0" : "ua-d0");
    EXPECT_TRUE(std::filesystem::exists(spec.run_dir + "/domain.xml"));
    const MachineFacts facts = m->Facts();
    EXPECT_EQ(facts.backend_details["domain"], domain);
    EXPECT_NE(facts.qemu_version.find("via libvirt"), std::string::npos) << facts.qemu_version;
    ASSERT_GT(m->Pid(), 0);

    // The job, with the host samplers the runner would start.
    auto agent_now = [&] {
      const Message r = m->Agent().Call(HelloRequest{}, std::chrono::seconds(10),
                                        [&] { m->CheckAlive(); });
      return std::get<HelloReply>(r).monotonic_ns;
    };
    const ClockOffset offset = EstimateClockOffset(agent_now, 3);
    JobSampler sampler(SourceFromMachine(*m, disk));
    sampler.Start();
    JobSpec job;
    job.name = "randread-qd8";
    job.target = device;
    job.pattern = Pattern::Random;
    job.engine = Engine::IoUring;
    job.iodepth = 8;
    job.bs = 4096;
    job.runtime_s = 1;
    const Message reply = m->Agent().Call(RunRequest{job}, std::chrono::minutes(2),
                                          [&] { m->CheckAlive(); });
    sampler.Stop();
    ASSERT_TRUE(std::holds_alternative<ResultReply>(reply)) << MessageType(reply);
    const JobResult r = std::get<ResultReply>(reply).result;
    const HostLayers host = sampler.Summarize(AgentToHostNs(offset, r.io_start_ns),
                                              AgentToHostNs(offset, r.io_end_ns));
    std::cout << "[ measured ] " << ToString(v.bus) << (v.upload_backing ? " (uploaded backing)" : "")
              << ": boot " << boot_s << " s, " << r.ios << " IOs, " << r.iops << " IOPS, L0 depth "
              << r.app_avg_depth << ", QEMU block: " << host.qemu_block.source << " depth "
              << host.qemu_block.avg_depth << " iops " << host.qemu_block.iops
              << ", virtqueue: " << (host.virtqueue.available ? "available" : host.virtqueue.reason)
              << ", host device: "
              << (host.host_device.available ? host.host_device.source : host.host_device.reason)
              << "\n";
    for (const std::string& w : host.warnings) std::cout << "[ warning  ] " << w << "\n";
    EXPECT_GT(r.ios, 0u);
    EXPECT_GT(r.iops, 0);
    ASSERT_TRUE(host.qemu_block.available) << host.qemu_block.reason;
    EXPECT_GT(host.qemu_block.iops, 0);
    EXPECT_GT(host.qemu_block.avg_depth, 0);
    if (v.bus == Bus::VirtioBlk) {
      EXPECT_EQ(host.qemu_block.source, "libvirt block stats vda (virDomainListGetStats)");
      EXPECT_TRUE(host.virtqueue.available) << host.virtqueue.reason;
    } else if (v.bus == Bus::Ahci) {
      EXPECT_EQ(host.qemu_block.source, "libvirt block stats sda (virDomainListGetStats)");
      EXPECT_FALSE(host.virtqueue.available);
    } else {
      EXPECT_EQ(host.qemu_block.source, "query-blockstats dev-d0");  // QMP through libvirt
    }
    if (v.bus == Bus::VirtioScsi) {
      EXPECT_TRUE(host.virtqueue.available) << host.virtqueue.reason;
    }
    EXPECT_FALSE(host.qemu_thread_cpu.empty());

    // The disk options libvirt gave QEMU are the ones the QEMU backend would give.
    const std::vector<std::string> ours = BuildQemuArgv(spec, PathsIn(spec.run_dir));
    const auto [our_file, our_dev] = DiskOptions(ours, "backing.raw", "dev-d0");
    const auto [lv_file, lv_dev] = DiskOptions(
        facts.argv, v.upload_backing ? domain + "-d0.img" : "backing.raw", m->DeviceId(disk));
    ASSERT_FALSE(lv_file.empty()) << "no file -blockdev for the disk in libvirt's command line";
    ASSERT_FALSE(lv_dev.empty()) << "no -device " << m->DeviceId(disk);
    std::vector<const char*> device_keys = {"driver", "serial"};
    if (v.bus == Bus::VirtioBlk) {
      device_keys.insert(device_keys.end(), {"num-queues", "queue-size", "request-merging"});
    } else if (v.bus == Bus::Nvme) {
      device_keys.push_back("max_ioqpairs");
    }
    std::cout << "[ argv     ] libvirt gave QEMU:";
    for (const char* key : {"aio", "cache.direct", "cache.no-flush"}) {
      EXPECT_EQ(lv_file.count(key) ? lv_file.at(key) : "(absent)", our_file.at(key)) << key;
      std::cout << " " << key << "=" << (lv_file.count(key) ? lv_file.at(key) : "(absent)");
    }
    for (const char* key : device_keys) {
      EXPECT_EQ(lv_dev.count(key) ? lv_dev.at(key) : "(absent)", our_dev.at(key)) << key;
      std::cout << " " << key << "=" << (lv_dev.count(key) ? lv_dev.at(key) : "(absent)");
    }
    std::cout << "\n";

    m->Shutdown();
    EXPECT_THROW(m->CheckAlive(), MachineDiedError);
  }
  EXPECT_TRUE(DomainsStartingWith(std::string(kDomainPrefix) + Session()).empty());
  EXPECT_TRUE(std::filesystem::exists(spec.run_dir + "/console.log"));
  EXPECT_GT(std::filesystem::file_size(spec.run_dir + "/console.log"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Buses, LibvirtBackendTest,
                         ::testing::Values(Variant{Bus::VirtioBlk, false},
                                           Variant{Bus::Nvme, true},
                                           Variant{Bus::VirtioScsi, false},
                                           Variant{Bus::Ahci, false}),
                         [](const auto& info) {
                           if (info.param.bus == Bus::Nvme) return std::string("nvme_uploaded_backing");
                           if (info.param.bus == Bus::VirtioScsi) return std::string("virtio_scsi_in_place");
                           if (info.param.bus == Bus::Ahci) return std::string("ahci_in_place");
                           return std::string("virtio_blk_in_place");
                         });

TEST(LibvirtBackendDeathTest, AKilledQemuIsMachineDiedWithTheConsoleTail) {
  std::string why;
  const GuestImage image = testing::SharedGuestImage(&why, GuestModulesOf({}));  // no disks
  if (image.kernel_path.empty()) GTEST_SKIP() << "no guest image: " << why;
  const std::unique_ptr<LibvirtBackend> backend = SystemBackend(false, &why);
  if (!backend) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("libvirt-death");
  const MachineSpec spec = testing::TestGuestSpec("lv-death", image, dir + "/machine");
  std::unique_ptr<Machine> m = backend->Start(spec, std::chrono::seconds(180));
  ASSERT_GT(m->Pid(), 0);
  ASSERT_EQ(::kill(m->Pid(), SIGKILL), 0);
  try {
    m->Agent().Call(HelloRequest{}, std::chrono::seconds(30), [&] { m->CheckAlive(); });
    FAIL() << "the agent answered after its QEMU was killed";
  } catch (const MachineDiedError&) {
  } catch (const AgentLinkError& e) {
    // The channel usually sees the closed stream before libvirt has reaped QEMU; the
    // runner then gives the machine a moment (guest_target's WhyTheLinkFailed). So here.
    std::cout << "[ link     ] " << e.what() << "\n";
  }
  std::optional<MachineDiedError> died;
  for (int i = 0; i < 50 && !died; ++i) {
    try {
      m->CheckAlive();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } catch (const MachineDiedError& e) {
      died = e;
    }
  }
  ASSERT_TRUE(died) << "CheckAlive still passes 5 s after QEMU was killed";
  std::cout << "[ message  ] " << died->what() << " / " << died->exit_description() << "\n";
  EXPECT_NE(died->exit_description().find("libvirt at " + std::string(kUri)), std::string::npos);
  EXPECT_FALSE(died->console_tail().empty());
  m.reset();
  EXPECT_TRUE(DomainsStartingWith(std::string(kDomainPrefix) + Session()).empty());
}

TEST(LibvirtBackendErrorTest, ADaemonThatIsNotThereIsOneErrorNamingTheUri) {
  LibvirtOptions options;
  options.uri = "qemu+unix:///system?socket=/nonexistent/sock";
  try {
    LibvirtBackend backend(options);
    FAIL() << "a backend without a daemon was created";
  } catch (const LibvirtError& e) {
    EXPECT_EQ(e.uri(), options.uri);
    EXPECT_NE(std::string(e.what()).find(options.uri), std::string::npos) << e.what();
    std::cout << "[ message  ] " << e.what() << "\n";
  }
}

TEST(LibvirtBackendErrorTest, ASpecLibvirtCannotExpressIsRefusedBeforeAnythingStarts) {
  std::string why;
  const std::unique_ptr<LibvirtBackend> backend = SystemBackend(false, &why);
  if (!backend) GTEST_SKIP() << why;
  MachineSpec spec;
  spec.name = "refused";
  spec.kernel = "/nonexistent/kernel";
  spec.run_dir = testing::ScratchDir("libvirt-refused");
  DiskSpec disk;
  disk.id = "d0";
  disk.backing = "/nonexistent/backing";
  disk.no_flush = true;  // with cache=none
  spec.disks.push_back(disk);
  EXPECT_THROW(backend->Start(spec, std::chrono::seconds(5)), MachineSpecError);
  EXPECT_TRUE(DomainsStartingWith(std::string(kDomainPrefix) + Session()).empty());
}

// A passed-through NVMe controller's domain XML is one libvirt's schema and the real
// libvirtd accept: defined, never started (no PCI device here is ours to hand over), and
// undefined at once. libvirt checks the device itself only at start.
TEST(LibvirtBackendErrorTest, APassthroughDomainIsAcceptedByLibvirtsSchemaAndDaemon) {
  std::optional<LibvirtConnection> conn;
  try {
    conn.emplace(LibvirtConnection::Open(kUri));
  } catch (const LibvirtError& e) {
    GTEST_SKIP() << "libvirtd not reachable (scripts/start-services.sh starts it): " << e.what();
  }
  const std::string dir = testing::ScratchDir("libvirt-hostdev");
  MachineSpec spec;
  spec.name = "hostdev";
  spec.kernel = "/nonexistent/kernel";
  spec.run_dir = dir;
  DiskSpec disk;
  disk.id = "d0";
  disk.bus = Bus::Nvme;
  disk.vfio_host = "0000:3a:1f.7";
  spec.disks.push_back(disk);
  DomainPlacement place;
  place.domain_name = DomainName(Session(), "hostdev");
  place.kernel = "/nonexistent/kernel";
  place.disk_paths = {""};
  place.console_path = dir + "/console.log";
  place.owner = {.session = Session(), .pid = ::getpid(), .host = "test", .started = "now"};
  const std::string xml_path = dir + "/domain.xml";
  std::ofstream(xml_path) << BuildDomainXml(spec, place);
  ChildProcess validate =
      ChildProcess::Start({"virt-xml-validate", xml_path, "domain"}, dir + "/validate.log");
  ASSERT_TRUE(validate.WaitFor(std::chrono::seconds(30)));
  EXPECT_TRUE(validate.ExitedSuccessfully()) << testing::Slurp(dir + "/validate.log");
  virDomainPtr defined = virDomainDefineXML(conn->get(), testing::Slurp(xml_path).c_str());
  ASSERT_NE(defined, nullptr) << virGetLastErrorMessage();
  char* back = virDomainGetXMLDesc(defined, VIR_DOMAIN_XML_INACTIVE);
  const std::string desc = back ? back : "";
  free(back);
  virDomainUndefine(defined);
  virDomainFree(defined);
  EXPECT_NE(desc.find("<hostdev mode='subsystem' type='pci' managed='no'>"), std::string::npos)
      << desc;
  EXPECT_NE(desc.find("<address domain='0x0000' bus='0x3a' slot='0x1f' function='0x7'/>"),
            std::string::npos)
      << desc;
  EXPECT_TRUE(DomainsStartingWith(std::string(kDomainPrefix) + Session()).empty());
  std::filesystem::remove_all(dir);
}

}  // namespace libvirt_backend_test
}  // namespace storbed

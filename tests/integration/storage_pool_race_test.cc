// Several threads, each with its own connection to qemu:///system, ensure one dir pool
// and upload one kernel-sized file at the same moment, as the slots of a host do when
// they boot together. Each round uses a pool of its own (created, or in the last round
// started, by the race itself), so the host's "storbed" pool and its volumes are never
// touched. Skips when libvirtd is not reachable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <latch>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "libvirt/storage_pool.h"
#include "libvirt/virt_handles.h"
#include "test_env.h"

namespace storbed {
namespace storage_pool_race_test {  // named, not anonymous: a unity build joins files

constexpr const char* kUri = "qemu:///system";
constexpr int kThreads = 4;

using testing::Slurp;

void WriteRandomFile(const std::string& path, size_t size, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::string data(size, '\0');
  for (size_t i = 0; i + 8 <= size; i += 8) {
    const uint64_t v = gen();
    std::memcpy(&data[i], &v, 8);
  }
  std::ofstream(path, std::ios::binary) << data;
}

// Names of the volumes in pool `pool`, or {"<error>"}.
std::vector<std::string> VolumesOf(const LibvirtConnection& conn, const std::string& pool) {
  PoolHandle p(virStoragePoolLookupByName(conn.get(), pool.c_str()));
  virStorageVolPtr* raw = nullptr;
  const int n = p ? virStoragePoolListAllVolumes(p.get(), &raw, 0) : -1;
  if (n < 0) return {"<cannot list pool " + pool + ">"};
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    names.push_back(virStorageVolGetName(raw[i]));
    virStorageVolFree(raw[i]);
  }
  std::free(raw);
  return names;
}

// The test's own pool: its volumes deleted and the pool destroyed (which ends a transient
// one) and undefined on every path.
struct OwnPool {
  const LibvirtConnection& conn;
  std::string name;
  ~OwnPool() {
    PoolHandle p(virStoragePoolLookupByName(conn.get(), name.c_str()));
    if (!p) {
      virResetLastError();
      return;
    }
    for (const std::string& v : VolumesOf(conn, name)) {
      VolumeHandle vol(virStorageVolLookupByName(p.get(), v.c_str()));
      if (vol) virStorageVolDelete(vol.get(), 0);
    }
    virStoragePoolDestroy(p.get());
    virStoragePoolUndefine(p.get());  // refused for a transient pool, which is gone already
    virResetLastError();
  }
};

// Expected: every thread gets the same complete volume, and no temporary volume is left.
// Before the fix (without the boot lock) a thread failed with "create volume vmlinuz-0-...:
// storage volume ... exists already", a loser could delete the winner's volume mid-upload,
// and a reader could take a half-written kernel.
TEST(StoragePoolRaceTest, FourConnectionsEnsureOnePoolAndUploadOneFileAtOnce) {
  std::optional<LibvirtConnection> conn;
  try {
    conn.emplace(LibvirtConnection::Open(kUri));
  } catch (const LibvirtError& e) {
    GTEST_SKIP() << "libvirtd not reachable (scripts/start-services.sh starts it): " << e.what();
  }
  const std::string dir = testing::ScratchDir("pool-race");
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string pool =
        "storbed-race-" + std::to_string(::getpid()) + "-" + std::to_string(round);
    OwnPool own{*conn, pool};
    const std::string pool_dir = dir + "/" + pool;  // missing: the pool build creates it
    const std::string file = dir + "/vmlinuz-" + std::to_string(round);
    WriteRandomFile(file, (6 << 20) + 123 * round, round);  // a kernel's size, not aligned
    const std::string volume = SharedVolumeName(file);
    if (round == 2) {  // defined but inactive: the threads race to start it instead
      const std::string xml = "<pool type='dir'><name>" + pool + "</name><target><path>" +
                              pool_dir + "</path></target></pool>";
      PoolHandle defined(virStoragePoolDefineXML(conn->get(), xml.c_str(), 0));
      ASSERT_TRUE(defined) << virGetLastErrorMessage();
    }

    // Two starting lines: one for the pool, one for the volume (a thread that lost the
    // pool's creation pauses, which would let the first thread upload alone).
    std::latch start(kThreads), upload(kThreads);
    std::vector<LibvirtConnection> conns;
    for (int t = 0; t < kThreads; ++t) conns.push_back(LibvirtConnection::Open(kUri));
    std::vector<std::string> paths(kThreads), errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        try {
          start.arrive_and_wait();
          std::optional<StoragePool> p;
          try {
            p.emplace(StoragePool::Ensure(conns[t], pool_dir, pool));
          } catch (...) {
            upload.count_down();
            throw;
          }
          upload.arrive_and_wait();
          paths[t] = p->UploadShared(file);
          // At once, while the others may still be copying: it must be whole already.
          p->Download(volume, dir + "/got-" + std::to_string(t));
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    }
    for (auto& th : threads) th.join();

    const std::string want = Slurp(file);
    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      ASSERT_EQ(errors[t], "");
      EXPECT_EQ(paths[t], pool_dir + "/" + volume);
      const std::string got = Slurp(dir + "/got-" + std::to_string(t));
      EXPECT_EQ(got.size(), want.size());
      EXPECT_TRUE(got == want) << "the volume thread " << t << " got differs from the file";
    }
    EXPECT_TRUE(Slurp(paths[0]) == want) << "the file on the host differs from the upload";
    EXPECT_EQ(VolumesOf(*conn, pool), std::vector<std::string>{volume});
  }
}

}  // namespace storage_pool_race_test
}  // namespace storbed

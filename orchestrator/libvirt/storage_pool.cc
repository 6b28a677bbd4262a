#include "libvirt/storage_pool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <thread>

#include "backend/host_channel.h"
#include "backend/interrupt.h"
#include "libvirt/domain_xml.h"
#include "libvirt/xml_doc.h"

namespace storbed {
namespace {

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct SourceFile {
  int fd;
  std::string path;
};

// virStreamSendAll's source: the next bytes of the file; -1 stops the upload.
int ReadChunk(virStreamPtr, char* data, size_t n, void* opaque) {
  auto* src = static_cast<SourceFile*>(opaque);
  if (Interrupted()) return -1;
  for (;;) {
    const ssize_t got = ::read(src->fd, data, n);
    if (got >= 0) return static_cast<int>(got);
    if (errno != EINTR) return -1;
  }
}

// virStreamRecvAll's sink.
int WriteChunk(virStreamPtr, const char* data, size_t n, void* opaque) {
  const int fd = *static_cast<int*>(opaque);
  size_t done = 0;
  while (done < n) {
    const ssize_t put = ::write(fd, data + done, n - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return -1;
    done += static_cast<size_t>(put);
  }
  return static_cast<int>(n);
}

// This thread's last libvirt error, reset; never code 0 (a failed call without one).
VirStatus LastStatus() {
  LastLibvirtError last = TakeLastLibvirtError();
  return {last.code != 0 ? last.code : VIR_ERR_INTERNAL_ERROR, std::move(last.message)};
}

void PauseAMoment() {
  ThrowIfInterrupted();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

std::string VolumeXml(const std::string& name, uint64_t capacity, uint64_t allocation) {
  return "<volume type='file'><name>" + XmlEscape(name) + "</name><capacity unit='bytes'>" +
         std::to_string(capacity) + "</capacity><allocation unit='bytes'>" +
         std::to_string(allocation) +
         "</allocation><target><format type='raw'/><permissions><mode>0644</mode>"
         "</permissions></target></volume>";
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    throw std::runtime_error("cannot stat " + path + ": " + std::strerror(errno));
  }
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace

std::string SharedVolumeName(const std::string& local_path) {
  struct stat st;
  if (::stat(local_path.c_str(), &st) != 0) {
    throw std::runtime_error("cannot stat " + local_path + ": " + std::strerror(errno));
  }
  // FNV-1a: stable across processes and builds, unlike std::hash.
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  };
  // "copied": volumes published by copy (PublishShared). Older storbeds uploaded in place,
  // and a volume of theirs may be cut short with nothing to show it; it is never taken.
  mix("copied");
  // The absolute path: a relative --image-cache must not publish a second copy.
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::weakly_canonical(local_path, ec);
  mix(ec ? local_path : absolute.string());
  mix(std::to_string(st.st_size));
  mix(std::to_string(static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL +
                     st.st_mtim.tv_nsec));
  std::string base = local_path.substr(local_path.rfind('/') + 1);
  for (char& c : base) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) c = '_';
  }
  if (base.empty() || base[0] == '.') base = "file" + base;
  return base + "-" + Hex64(h);
}

std::string TempVolumeName(const std::string& name, std::time_t now, int pid, uint64_t serial) {
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &utc);
  char tail[24];
  std::snprintf(tail, sizeof tail, ".part%llx", static_cast<unsigned long long>(serial));
  return "storbed-" + std::string(stamp) + "-" + std::to_string(pid) + "-" + name + tail;
}

namespace {

class PoolSetupLive : public PoolSetupCalls {
 public:
  PoolSetupLive(const LibvirtConnection& conn, const std::string& name, const std::string& dir)
      : conn_(conn),
        name_(name),
        xml_("<pool type='dir'><name>" + XmlEscape(name) + "</name><target><path>" +
             XmlEscape(dir) + "</path></target></pool>") {}
  VirStatus Lookup() override {
    pool.reset(virStoragePoolLookupByName(conn_.get(), name_.c_str()));
    return pool ? VirStatus{} : LastStatus();
  }
  VirStatus CreateTransient() override {
    pool.reset(
        virStoragePoolCreateXML(conn_.get(), xml_.c_str(), VIR_STORAGE_POOL_CREATE_WITH_BUILD));
    return pool ? VirStatus{} : LastStatus();
  }
  VirStatus IsActive(bool* active) override {
    const int a = virStoragePoolIsActive(pool.get());
    if (a < 0) return LastStatus();
    *active = a == 1;
    return {};
  }
  VirStatus Start() override {
    if (virStoragePoolCreate(pool.get(), VIR_STORAGE_POOL_CREATE_WITH_BUILD) < 0)
      return LastStatus();
    return {};
  }
  void Pause() override { PauseAMoment(); }

  PoolHandle pool;

 private:
  const LibvirtConnection& conn_;
  const std::string& name_;
  const std::string xml_;
};

}  // namespace

std::string PoolTargetPath(const std::string& pool_xml) {
  const std::optional<XmlDoc> doc = XmlDoc::Parse(pool_xml);
  return doc ? doc->First("/pool/target/path").value_or("") : "";
}

StoragePool StoragePool::Ensure(const LibvirtConnection& conn, const std::string& dir,
                                const std::string& name) {
  PoolSetupLive live(conn, name, dir);
  EnsurePoolActive(live, conn.uri(), name, dir);
  const std::string desc = TakeLibvirtString(virStoragePoolGetXMLDesc(live.pool.get(), 0));
  std::string path = PoolTargetPath(desc);
  if (path.empty()) path = dir;
  return StoragePool(std::move(live.pool), conn.uri(), name, path);
}

void StoragePool::Refresh() {
  // libvirt refuses a refresh while it copies a volume in ("has asynchronous jobs
  // running", an INTERNAL_ERROR like many others); a shared volume's copy is brief.
  for (int tries = 1; virStoragePoolRefresh(pool_.get(), 0) < 0; ++tries) {
    if (tries == 40) ThrowLastLibvirtError(uri_, "refresh pool " + name_);
    virResetLastError();
    PauseAMoment();
  }
}

VolumeHandle StoragePool::CreateVolume(const std::string& name, uint64_t size) {
  const std::string xml = VolumeXml(name, size, 0);
  VolumeHandle vol(virStorageVolCreateXML(pool_.get(), xml.c_str(), 0));
  if (!vol) ThrowLastLibvirtError(uri_, "create volume " + name + " in pool " + name_);
  return vol;
}

std::string StoragePool::PathOf(const std::string& volume) {
  VolumeHandle vol(virStorageVolLookupByName(pool_.get(), volume.c_str()));
  if (!vol) ThrowLastLibvirtError(uri_, "find volume " + volume + " in pool " + name_);
  return TakeLibvirtString(virStorageVolGetPath(vol.get()));
}

// SharedVolumeCalls on this pool, for one local file.
class SharedVolumeLive : public SharedVolumeCalls {
 public:
  SharedVolumeLive(StoragePool& pool, const std::string& local_path)
      : pool_(pool), local_path_(local_path), size_(FileSize(local_path)) {}

  VolumeState State(const std::string& name) override {
    VolumeHandle vol(virStorageVolLookupByName(pool_.pool_.get(), name.c_str()));
    virStorageVolInfo info;
    if (!vol || virStorageVolGetInfo(vol.get(), &info) < 0) return Gone("look up volume " + name);
    if (info.capacity != size_) return VolumeState::Incomplete;
    // GetInfo cannot tell a copy in progress from a finished one. Download can: it is
    // refused with OPERATION_INVALID ("still being allocated"). One byte answers.
    StreamHandle st(virStreamNew(virStoragePoolGetConnect(pool_.pool_.get()), 0));
    if (!st) ThrowStatus(pool_.uri_, "probe volume " + name, LastStatus());
    if (virStorageVolDownload(vol.get(), st.get(), 0, 1, 0) < 0) {
      const VirStatus s = LastStatus();
      if (s.code == VIR_ERR_OPERATION_INVALID) return VolumeState::Building;
      if (s.code == VIR_ERR_NO_STORAGE_VOL) return VolumeState::Missing;
      ThrowStatus(pool_.uri_, "probe volume " + name, s);
    }
    char byte[16];
    int got;
    while ((got = virStreamRecv(st.get(), byte, sizeof byte)) > 0) {
    }
    if (got < 0 || virStreamFinish(st.get()) < 0) {
      const VirStatus s = LastStatus();
      virStreamAbort(st.get());
      virResetLastError();
      ThrowStatus(pool_.uri_, "probe volume " + name, s);
    }
    return VolumeState::Complete;
  }

  void UploadTemp(const std::string& temp) override { pool_.UploadNew(local_path_, temp); }

  VirStatus CopyFrom(const std::string& name, const std::string& temp) override {
    VolumeHandle src(virStorageVolLookupByName(pool_.pool_.get(), temp.c_str()));
    if (!src) return LastStatus();
    const std::string xml = VolumeXml(name, size_, size_);
    VolumeHandle vol(virStorageVolCreateXMLFrom(pool_.pool_.get(), xml.c_str(), src.get(), 0));
    return vol ? VirStatus{} : LastStatus();
  }

  VirStatus Delete(const std::string& name) override {
    VolumeHandle vol(virStorageVolLookupByName(pool_.pool_.get(), name.c_str()));
    if (!vol || virStorageVolDelete(vol.get(), 0) < 0) return LastStatus();
    return {};
  }

  void Pause() override { PauseAMoment(); }

 private:
  // A volume deleted between two calls is missing; any other failure is thrown.
  VolumeState Gone(const std::string& operation) {
    const VirStatus s = LastStatus();
    if (s.code == VIR_ERR_NO_STORAGE_VOL) return VolumeState::Missing;
    ThrowStatus(pool_.uri_, operation, s);
  }

  StoragePool& pool_;
  const std::string& local_path_;
  const uint64_t size_;
};

std::string StoragePool::UploadShared(const std::string& local_path) {
  const std::string name = SharedVolumeName(local_path);
  // Unique per upload: the pid and a per-process serial, started at random so two hosts'
  // storbeds with the same pid do not collide on one daemon either.
  static std::atomic<uint64_t> serial{std::random_device{}()};
  SharedVolumeLive live(*this, local_path);
  PublishShared(live, uri_, name,
                TempVolumeName(name, std::time(nullptr), static_cast<int>(::getpid()), serial++));
  return PathOf(name);
}

VolumeHandle StoragePool::UploadNew(const std::string& local_path, const std::string& name) {
  const uint64_t size = FileSize(local_path);
  SourceFile src{::open(local_path.c_str(), O_RDONLY | O_CLOEXEC), local_path};
  if (src.fd < 0) {
    throw std::runtime_error("cannot open " + local_path + ": " + std::strerror(errno));
  }
  UniqueFd close_src(src.fd);
  VolumeHandle vol = CreateVolume(name, size);
  StreamHandle st(virStreamNew(virStoragePoolGetConnect(pool_.get()), 0));
  const std::string what = "upload " + local_path + " to volume " + name;
  auto fail = [&] {
    const virError* err = virGetLastError();
    std::string why = err && err->message ? err->message : "the upload stopped";
    if (Interrupted()) why = "interrupted";
    virResetLastError();
    if (st) virStreamAbort(st.get());
    virResetLastError();
    virStorageVolDelete(vol.get(), 0);
    virResetLastError();
    if (Interrupted()) ThrowIfInterrupted();
    throw LibvirtError(uri_, what, why);
  };
  if (!st || virStorageVolUpload(vol.get(), st.get(), 0, size, 0) < 0) fail();
  if (virStreamSendAll(st.get(), ReadChunk, &src) < 0) fail();
  if (virStreamFinish(st.get()) < 0) fail();
  return vol;
}

std::string StoragePool::Upload(const std::string& local_path, const std::string& name) {
  Delete(name);
  VolumeHandle vol = UploadNew(local_path, name);
  return TakeLibvirtString(virStorageVolGetPath(vol.get()));
}

void StoragePool::Download(const std::string& name, const std::string& local_path) {
  Refresh();
  VolumeHandle vol(virStorageVolLookupByName(pool_.get(), name.c_str()));
  if (!vol) ThrowLastLibvirtError(uri_, "find volume " + name + " in pool " + name_);
  const int fd = ::open(local_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + local_path + ": " + std::strerror(errno));
  UniqueFd close_fd(fd);
  StreamHandle st(virStreamNew(virStoragePoolGetConnect(pool_.get()), 0));
  int sink = fd;
  const std::string what = "download volume " + name + " to " + local_path;
  if (!st || virStorageVolDownload(vol.get(), st.get(), 0, 0, 0) < 0) {
    ThrowLastLibvirtError(uri_, what);
  }
  if (virStreamRecvAll(st.get(), WriteChunk, &sink) < 0) {
    const virError* err = virGetLastError();
    const std::string why = err && err->message ? err->message : "the download stopped";
    virResetLastError();
    virStreamAbort(st.get());
    virResetLastError();
    throw LibvirtError(uri_, what, why);
  }
  if (virStreamFinish(st.get()) < 0) ThrowLastLibvirtError(uri_, what);
}

void StoragePool::Delete(const std::string& name) noexcept {
  VolumeHandle vol(virStorageVolLookupByName(pool_.get(), name.c_str()));
  if (vol) virStorageVolDelete(vol.get(), 0);
  virResetLastError();
}

}  // namespace storbed

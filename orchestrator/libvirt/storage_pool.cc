#include "libvirt/storage_pool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "backend/interrupt.h"
#include "backend/line_channel.h"
#include "libvirt/domain_xml.h"

namespace storbed {
namespace {

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string TakeString(char* s) {
  std::string out = s ? s : "";
  std::free(s);
  return out;
}

std::string Between(const std::string& text, const std::string& open, const std::string& close,
                    size_t from = 0) {
  const size_t a = text.find(open, from);
  if (a == std::string::npos) return "";
  const size_t b = text.find(close, a + open.size());
  if (b == std::string::npos) return "";
  return text.substr(a + open.size(), b - a - open.size());
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
  mix(local_path);
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

StoragePool StoragePool::Ensure(const LibvirtConnection& conn, const std::string& dir) {
  PoolHandle pool(virStoragePoolLookupByName(conn.get(), kPoolName));
  if (!pool) {
    virResetLastError();
    const std::string xml = "<pool type='dir'><name>" + std::string(kPoolName) +
                            "</name><target><path>" + XmlEscape(dir) +
                            "</path></target></pool>";
    pool.reset(virStoragePoolCreateXML(conn.get(), xml.c_str(),
                                       VIR_STORAGE_POOL_CREATE_WITH_BUILD));
    if (!pool) {
      const virError* err = virGetLastError();
      const std::string why = err && err->message ? err->message : "unknown error";
      virResetLastError();
      // Another storbed may have created it a moment ago.
      pool.reset(virStoragePoolLookupByName(conn.get(), kPoolName));
      if (!pool) {
        virResetLastError();
        throw LibvirtError(conn.uri(), "create storage pool " + std::string(kPoolName) + " at " + dir,
                           why);
      }
    }
  }
  const int active = virStoragePoolIsActive(pool.get());
  if (active < 0) conn.Fail("query storage pool " + std::string(kPoolName));
  if (active == 0 && virStoragePoolCreate(pool.get(), VIR_STORAGE_POOL_CREATE_WITH_BUILD) < 0) {
    conn.Fail("start storage pool " + std::string(kPoolName));
  }
  const std::string desc = TakeString(virStoragePoolGetXMLDesc(pool.get(), 0));
  const std::string target = Between(desc, "<target>", "</target>");
  std::string path = Between(target, "<path>", "</path>");
  if (path.empty()) path = dir;
  return StoragePool(std::move(pool), conn.uri(), path);
}

void StoragePool::Refresh() {
  if (virStoragePoolRefresh(pool_.get(), 0) < 0) ThrowLastLibvirtError(uri_, "refresh pool storbed");
}

VolumeHandle StoragePool::CreateVolume(const std::string& name, uint64_t size) {
  Delete(name);
  const std::string xml = "<volume type='file'><name>" + XmlEscape(name) +
                          "</name><capacity unit='bytes'>" + std::to_string(size) +
                          "</capacity><allocation unit='bytes'>0</allocation><target>"
                          "<format type='raw'/><permissions><mode>0644</mode></permissions>"
                          "</target></volume>";
  VolumeHandle vol(virStorageVolCreateXML(pool_.get(), xml.c_str(), 0));
  if (!vol) ThrowLastLibvirtError(uri_, "create volume " + name + " in pool storbed");
  return vol;
}

std::string StoragePool::UploadShared(const std::string& local_path) {
  const std::string name = SharedVolumeName(local_path);
  const uint64_t size = FileSize(local_path);
  VolumeHandle vol(virStorageVolLookupByName(pool_.get(), name.c_str()));
  virStorageVolInfo info;
  // An upload cut short leaves the right capacity but a smaller allocation (the volume
  // starts sparse and the stream writes every byte).
  if (vol && virStorageVolGetInfo(vol.get(), &info) == 0 && info.capacity == size &&
      info.allocation >= size / 4096 * 4096) {
    return TakeString(virStorageVolGetPath(vol.get()));
  }
  virResetLastError();
  return Upload(local_path, name);
}

std::string StoragePool::Upload(const std::string& local_path, const std::string& name) {
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
  return TakeString(virStorageVolGetPath(vol.get()));
}

void StoragePool::Download(const std::string& name, const std::string& local_path) {
  Refresh();
  VolumeHandle vol(virStorageVolLookupByName(pool_.get(), name.c_str()));
  if (!vol) ThrowLastLibvirtError(uri_, "find volume " + name + " in pool storbed");
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

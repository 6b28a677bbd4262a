// The "storbed" dir storage pool on the libvirt host, and files moved in and out of it
// through libvirt streams (virStorageVolUpload / virStorageVolDownload), so a remote host
// needs nothing but libvirtd: no scp, no shared filesystem. Several threads, connections
// and storbed processes may ensure the pool and upload the same shared volume at once.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

#include "libvirt/pool_races.h"
#include "libvirt/virt_handles.h"

namespace storbed {

inline constexpr const char* kPoolName = "storbed";

class SharedVolumeLive;

class StoragePool {
 public:
  // Looks pool `name` up, starting it if it is defined but inactive; else creates it as a
  // transient dir pool at `dir` (built when missing). Another caller creating or starting
  // it at the same moment counts as success (EnsurePoolActive). Throws LibvirtError.
  static StoragePool Ensure(const LibvirtConnection& conn, const std::string& dir,
                            const std::string& name = kPoolName);

  // The pool's directory on the libvirt host (its <target><path>, which may differ from
  // the dir asked for when the pool already existed).
  const std::string& Dir() const { return dir_; }

  // A volume named after the file's identity (name, size, mtime), uploaded once and
  // reused while a complete one of that name exists (PublishShared). Returns its path
  // on the host. For the kernel and initrd, which many machines share.
  std::string UploadShared(const std::string& local_path);
  // Uploads `local_path` as volume `name`, replacing any volume of that name. Returns
  // its path on the host. For per-machine files, deleted with Delete afterwards.
  std::string Upload(const std::string& local_path, const std::string& name);
  // Writes volume `name` to `local_path` (refreshing the pool first, so files created on
  // the host by others, like a console log, are seen). Throws LibvirtError.
  void Download(const std::string& name, const std::string& local_path);
  // Deletes volume `name` if it exists; never throws.
  void Delete(const std::string& name) noexcept;

  const PoolHandle& handle() const { return pool_; }

 private:
  friend class SharedVolumeLive;
  StoragePool(PoolHandle pool, std::string uri, std::string name, std::string dir)
      : pool_(std::move(pool)),
        uri_(std::move(uri)),
        name_(std::move(name)),
        dir_(std::move(dir)) {}
  VolumeHandle CreateVolume(const std::string& name, uint64_t size);
  // Creates volume `name` (which must not exist) and streams the file into it; deletes
  // it again when the upload fails.
  VolumeHandle UploadNew(const std::string& local_path, const std::string& name);
  std::string PathOf(const std::string& volume);
  void Refresh();

  PoolHandle pool_;
  std::string uri_;
  std::string name_;
  std::string dir_;
};

// The shared volume name for a file: its base name (unsafe characters replaced) and a
// 64-bit FNV-1a of its path, size and mtime (and the publishing scheme) in hex. Throws
// std::runtime_error if the file cannot be stat()ed.
std::string SharedVolumeName(const std::string& local_path);

// Where a shared volume is uploaded before it gets its name:
// "storbed-<UTC yyyymmddThhmmss>-<pid>-<name>.part<serial in hex>". The prefix is a run
// session's, so `storbed cleanup` finds one left by a killed upload once its pid is gone.
std::string TempVolumeName(const std::string& name, std::time_t now, int pid, uint64_t serial);

// The <target><path> of a pool's XML description, decoded; "" when it has none or the XML
// cannot be read.
std::string PoolTargetPath(const std::string& pool_xml);

}  // namespace storbed

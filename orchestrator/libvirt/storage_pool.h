// The "storbed" dir storage pool on the libvirt host, and files moved in and out of it
// through libvirt streams (virStorageVolUpload / virStorageVolDownload), so a remote host
// needs nothing but libvirtd: no scp, no shared filesystem.
#pragma once

#include <cstdint>
#include <string>

#include "libvirt/virt_handles.h"

namespace storbed {

inline constexpr const char* kPoolName = "storbed";

class StoragePool {
 public:
  // Looks the pool up, starting it if it is defined but inactive; else creates it as a
  // transient dir pool at `dir` (built when missing). Throws LibvirtError.
  static StoragePool Ensure(const LibvirtConnection& conn, const std::string& dir);

  // The pool's directory on the libvirt host (its <target><path>, which may differ from
  // the dir asked for when the pool already existed).
  const std::string& Dir() const { return dir_; }

  // A volume named after the file's identity (name, size, mtime), uploaded once and
  // reused while one with the same name and a complete allocation exists. Returns its
  // path on the host. For the kernel and initrd, which many machines share.
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
  StoragePool(PoolHandle pool, std::string uri, std::string dir)
      : pool_(std::move(pool)), uri_(std::move(uri)), dir_(std::move(dir)) {}
  VolumeHandle CreateVolume(const std::string& name, uint64_t size);
  void Refresh();

  PoolHandle pool_;
  std::string uri_;
  std::string dir_;
};

// The shared volume name for a file: its base name (unsafe characters replaced) and a
// 64-bit FNV-1a of its path, size and mtime in hex. Throws std::runtime_error if the file
// cannot be stat()ed.
std::string SharedVolumeName(const std::string& local_path);

}  // namespace storbed

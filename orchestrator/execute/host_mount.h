// A filesystem mounted on the host for the bare-metal twin of a filesystem target: the
// image's loop device mounted read-write on a directory of the work dir, so the host
// agent runs the job on the same test file the guest sees.
#pragma once

#include <string>

namespace storbed {

// Move-only owner of a mount; unmounts (and removes the directory it made) on destruction,
// on every path, exceptions included.
class HostMount {
 public:
  // Creates `dir` and mounts `device` (of filesystem `type`) there. Throws
  // std::runtime_error naming device, directory, type and the errno text.
  static HostMount Mount(const std::string& device, const std::string& dir,
                         const std::string& type);

  HostMount(HostMount&& other) noexcept;
  HostMount(const HostMount&) = delete;
  HostMount& operator=(const HostMount&) = delete;
  HostMount& operator=(HostMount&&) = delete;
  ~HostMount();

  const std::string& dir() const { return dir_; }

 private:
  explicit HostMount(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace storbed

#include "target_safety.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace storbed::agent {

void CheckStandaloneTarget(const JobSpec& spec, bool allow_writes,
                           const DeviceUseSources& sources) {
  struct stat st {};
  if (stat(spec.target.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return;
  const std::string job = "job '" + spec.name + "' on " + spec.target;
  // Reads are refused too: the job would still set the queue's tunables and drop the
  // device's page cache under the filesystem or the program that uses it.
  if (const std::string why = DeviceInUse(spec.target, sources); !why.empty())
    throw TargetRefusedError(job + ": the device " + why +
                             "; storbed-agent does not touch a device the host is using");
  if (spec.rw != Direction::Read && !allow_writes)
    throw TargetRefusedError(job + ": rw " + ToString(spec.rw) +
                             " overwrites the data on the block device; pass --allow-writes "
                             "to let the agent write to it");
}

UniqueFd HoldStandaloneTarget(const JobSpec& spec) {
  struct stat st {};
  if (stat(spec.target.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return UniqueFd();
  UniqueFd fd(open(spec.target.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
  if (fd.get() >= 0) return fd;
  const int err = errno;
  const std::string job = "job '" + spec.name + "' on " + spec.target;
  if (err == EBUSY)
    throw TargetRefusedError(job +
                             ": the device was claimed by another (mounted, held or "
                             "opened exclusively) since it was checked; storbed-agent "
                             "does not touch a device the host is using");
  throw TargetRefusedError(job + ": cannot hold the device: " + std::strerror(err));
}

}  // namespace storbed::agent

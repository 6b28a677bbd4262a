// A machine's run directory holds QEMU's QMP and agent sockets: whoever can connect to
// them controls the guest and QEMU. QEMU creates them following the umask, so the
// directory is made 0700 and the sockets 0600 once they exist, whatever the umask.
#pragma once

#include <string>

namespace storbed {

// Creates `dir` (and parents) and sets it to 0700 even when it existed. Throws
// std::runtime_error naming the directory.
void MakePrivateDir(const std::string& dir);

// chmod 0600 of an existing file or socket. Throws std::runtime_error naming it.
void RestrictToOwner(const std::string& path);

}  // namespace storbed

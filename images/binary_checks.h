// What the guest image is built from, checked before anything is built or booted: a
// kernel that is not a bzImage, or an agent that is not a static x86-64 executable, only
// shows up as a guest that never answers (or panics with no init).
#pragma once

#include <string>

namespace storbed {

// "" when `path` is a regular file holding an x86 bzImage (boot flag 0xAA55 at 0x1FE and
// "HdrS" at 0x202); else the reason.
std::string BzImageProblem(const std::string& path);

// The release in a bzImage's version string ("6.1.0-57-amd64"), "" when it has none.
std::string BzImageRelease(const std::string& path);

// "" when `path` is a regular file holding a statically linked x86-64 ELF executable (no
// PT_INTERP: the initramfs has no dynamic loader); else the reason.
std::string StaticAgentProblem(const std::string& path);

}  // namespace storbed

// The Debian 12 test image of scripts/make-debian-image.sh, for tests of foreign guests:
// built on the first call on a machine (minutes, needs mmdebstrap and the mirror), then
// found in /var/cache/storbed/images by its content hash (instant).
#pragma once

#include <string>
#include <vector>

namespace storbed::testing {

// The image directory (debian12.qcow2, vmlinuz, initrd.img, append, kernel-release) for
// the script's `options` (e.g. {"--cloud-init"}), and with a `variant` the one
// scripts/derive-debian-image.sh makes of it with those options (e.g.
// {"--block-guest-exec"}); "" with *why when it cannot be had. The scripts' logs go to
// scratch/make-image.log and scratch/derive-image.log.
std::string CachedDebianImageDir(const std::string& scratch,
                                 const std::vector<std::string>& options, std::string* why,
                                 const std::vector<std::string>& variant = {});

// `s` without trailing newlines and spaces (the image's append and kernel-release files).
std::string TrimmedLine(std::string s);

}  // namespace storbed::testing

// The Debian 12 test image of scripts/make-debian-image.sh, for tests of foreign guests:
// built on the first call on a machine (minutes, needs mmdebstrap and the mirror), then
// found in /var/cache/storbed/images by its content hash (instant).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed::testing {

// The image directory (debian12.qcow2, vmlinuz, initrd.img, append, kernel-release) for
// the script's `options` (e.g. {"--cloud-init"}), and with a `variant` the one
// scripts/derive-debian-image.sh makes of it with those options (e.g.
// {"--block-guest-exec"}); "" with *why when it cannot be had. The scripts' logs go to
// scratch/make-image.log and scratch/derive-image.log.
std::string CachedDebianImageDir(const std::string& scratch,
                                 const std::vector<std::string>& options, std::string* why,
                                 const std::vector<std::string>& variant = {});

// A scenario named `name` that boots the image of `image_dir` (its own kernel, initrd and
// append) under TCG with agent_push `push` on `targets`, one tiny 4k random-read job.
nlohmann::json ForeignImageScenario(const std::string& name, const std::string& image_dir,
                                    const std::string& push,
                                    const std::vector<std::string>& targets);

// Writes `scenario` to dir/scenario.json and runs `storbed run` of it into dir/out with the
// test agent and `extra_args`; checks that it exits 0 and that each of `targets` gave one
// ok record under TCG with IO done, and returns the manifest. The CLI log is dir/cli.log.
nlohmann::json RunForeignScenario(const std::string& dir, const nlohmann::json& scenario,
                                  const std::vector<std::string>& targets,
                                  const std::vector<std::string>& extra_args = {});

// `s` without trailing newlines and spaces (the image's append and kernel-release files).
std::string TrimmedLine(std::string s);

}  // namespace storbed::testing

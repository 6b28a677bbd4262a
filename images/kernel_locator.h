// Finds the guest kernel: the newest host kernel in /boot with its modules, or one given by path.
#pragma once

#include <string>
#include <string_view>

namespace storbed {

struct GuestKernel {
  std::string image_path;   // bzImage/vmlinuz handed to QEMU -kernel
  std::string modules_dir;  // holds modules.dep, e.g. /lib/modules/6.1.0-57-amd64
  std::string release;      // uname -r of that kernel, e.g. 6.1.0-57-amd64
};

// The newest boot_dir/vmlinuz-<release> by kernel version order (6.1.0-10 > 6.1.0-9), with
// modules_root/<release>. Throws ImageError when there is no kernel or its modules dir is
// missing, with a sentence saying what to install or pass.
GuestKernel FindNewestHostKernel(const std::string& boot_dir = "/boot",
                                 const std::string& modules_root = "/lib/modules");

// A kernel given by the user. release = basename of modules_dir. Throws ImageError naming the
// path when the image is not a file or modules_dir has no modules.dep.
GuestKernel KernelFromPaths(const std::string& image, const std::string& modules_dir);

// Version order of two kernel release strings: digit runs compare as numbers, other runs as
// text, so "6.1.0-10-amd64" > "6.1.0-9-amd64" and "6.10" > "6.9". Returns <0, 0 or >0.
int CompareKernelReleases(std::string_view a, std::string_view b);

}  // namespace storbed

#include "images/kernel_locator.h"

#include <cctype>
#include <filesystem>
#include <system_error>
#include <vector>

#include "images/image_error.h"

namespace storbed {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kImagePrefix = "vmlinuz-";

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Splits off the leading run of digits or of non-digits.
std::string_view TakeRun(std::string_view& s) {
  size_t n = 0;
  bool digits = IsDigit(s[0]);
  while (n < s.size() && IsDigit(s[n]) == digits) ++n;
  std::string_view run = s.substr(0, n);
  s.remove_prefix(n);
  return run;
}

int CompareNumbers(std::string_view a, std::string_view b) {
  // Compare by value without parsing, so a 30-digit run cannot overflow.
  while (a.size() > 1 && a[0] == '0') a.remove_prefix(1);
  while (b.size() > 1 && b[0] == '0') b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

void RequireModulesDep(const std::string& modules_dir, const std::string& hint) {
  std::error_code ec;
  if (!fs::is_directory(modules_dir, ec)) {
    throw ImageError(modules_dir,
                     "kernel modules directory " + modules_dir + " does not exist" + hint);
  }
  std::string dep = modules_dir + "/modules.dep";
  if (!fs::is_regular_file(dep, ec)) {
    throw ImageError(dep, "no " + dep + ": run depmod for that kernel" + hint);
  }
}

}  // namespace

int CompareKernelReleases(std::string_view a, std::string_view b) {
  while (!a.empty() && !b.empty()) {
    bool a_digits = IsDigit(a[0]);
    bool b_digits = IsDigit(b[0]);
    std::string_view ra = TakeRun(a);
    std::string_view rb = TakeRun(b);
    int c;
    if (a_digits && b_digits) {
      c = CompareNumbers(ra, rb);
    } else if (a_digits != b_digits) {
      c = a_digits ? 1 : -1;  // "6.1.0-10" (more version) beats "6.1.0-rc"
    } else {
      c = ra.compare(rb);
    }
    if (c != 0) return c < 0 ? -1 : 1;
  }
  if (a.empty() && b.empty()) return 0;
  return a.empty() ? -1 : 1;
}

GuestKernel FindNewestHostKernel(const std::string& boot_dir, const std::string& modules_root) {
  std::vector<std::string> releases;
  std::error_code ec;
  for (fs::directory_iterator it(boot_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() <= kImagePrefix.size() || name.compare(0, kImagePrefix.size(), kImagePrefix))
      continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;  // a dangling vmlinuz symlink is no kernel
    releases.push_back(name.substr(kImagePrefix.size()));
  }
  if (releases.empty()) {
    throw ImageError(boot_dir,
                     "no kernel in " + boot_dir + ": install linux-image-amd64 or pass --kernel");
  }
  std::string newest = releases[0];
  for (const std::string& r : releases) {
    if (CompareKernelReleases(r, newest) > 0) newest = r;
  }
  GuestKernel kernel{.image_path = boot_dir + "/" + std::string(kImagePrefix) + newest,
                     .modules_dir = modules_root + "/" + newest,
                     .release = newest};
  RequireModulesDep(kernel.modules_dir, " (newest kernel is " + kernel.image_path +
                                            "; reinstall its package or pass --kernel)");
  return kernel;
}

GuestKernel KernelFromPaths(const std::string& image, const std::string& modules_dir) {
  std::error_code ec;
  if (!fs::exists(image, ec)) {
    throw ImageError(image, "kernel image " + image +
                                " does not exist (scripts/fetch-guest-kernel.sh PACKAGE unpacks a "
                                "Debian kernel package as a guest kernel)");
  }
  if (!fs::is_regular_file(image, ec)) {
    throw ImageError(image, "kernel image " + image + " is not a regular file");
  }
  RequireModulesDep(modules_dir, "");
  // "/lib/modules/6.1.0-57-amd64/" names the same release as without the slash.
  fs::path dir = fs::path(modules_dir).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  return GuestKernel{
      .image_path = image, .modules_dir = modules_dir, .release = dir.filename().string()};
}

}  // namespace storbed

#include "execute/foreign_image.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "images/binary_checks.h"
#include "images/file_digest.h"
#include "images/run_tool.h"

namespace storbed {
namespace {

std::string Unreadable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be read (" + std::string(std::strerror(errno)) + ")";
  return "";
}

}  // namespace

std::string ForeignImageFormat(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read (" + std::strerror(errno) + ")");
  char magic[4] = {};
  in.read(magic, sizeof magic);
  return std::string(magic, in.gcount()) == "QFI\xfb" ? "qcow2" : "raw";
}

std::string ForeignMachineProblem(const MachineConfig& m) {
  if (m.image.empty()) {
    if (!m.initrd.empty()) return "machine.initrd: is only for a foreign image (machine.image)";
    if (!m.append.empty()) return "machine.append: is only for a foreign image (machine.image)";
    return "";
  }
  if (const std::string why = Unreadable(m.image); !why.empty())
    return "machine.image: " + m.image + " " + why;
  if (m.kernel == "host")
    return "machine.kernel: a foreign image boots its own kernel: name it (scripts/"
           "make-debian-image.sh puts vmlinuz, initrd.img and append beside the image) or "
           "\"disk\" for the image's own bootloader";
  if (m.kernel == kBootFromDisk) {
    if (!m.initrd.empty() || !m.append.empty())
      return "machine.kernel: \"disk\" boots the image's bootloader, which ignores "
             "machine.initrd and machine.append; leave them out or name the kernel";
    return "";
  }
  if (const std::string why = BzImageProblem(m.kernel); !why.empty())
    return "machine.kernel: " + m.kernel + " " + why;
  if (!m.initrd.empty())
    if (const std::string why = Unreadable(m.initrd); !why.empty())
      return "machine.initrd: " + m.initrd + " " + why;
  if (m.append.empty())
    return "machine.append: a kernel of a foreign image needs its command line (at least "
           "root=...; scripts/make-debian-image.sh writes it to the append file)";
  return "";
}

GuestImage ForeignGuestImage(const MachineConfig& m) {
  GuestImage image;
  if (m.kernel == kBootFromDisk) return image;  // the image's bootloader: nothing outside it
  image.kernel_path = m.kernel;
  image.initrd_path = m.initrd;
  image.kernel_sha256 = FileSha256(m.kernel);
  image.kernel_release = BzImageRelease(m.kernel);
  return image;
}

void CreateOverlay(const std::string& image, const std::string& format, const std::string& overlay) {
  // -u would skip opening the backing; without it qemu-img checks it reads as `format`.
  RunTool({"qemu-img", "create", "-q", "-f", "qcow2", "-b", image, "-F", format, overlay},
          "apt-get install qemu-utils");
}

}  // namespace storbed

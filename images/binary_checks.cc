#include "images/binary_checks.h"

#include <elf.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "input_file.h"

namespace storbed {
namespace {

// "" when `path` is a regular file; else why not.
std::string RegularFileProblem(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::string("cannot be read: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "is " + FileKindName(st.st_mode) + ", not a regular file";
  return "";
}

// Up to `n` bytes from `offset`; fewer at the end of the file.
std::string ReadAt(const std::string& path, uint64_t offset, size_t n) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string out(n, '\0');
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(in ? n : static_cast<size_t>(in.gcount()));
  return out;
}

}  // namespace

std::string BzImageProblem(const std::string& path) {
  if (std::string why = RegularFileProblem(path); !why.empty()) return why;
  const std::string header = ReadAt(path, 0x1FE, 8);
  if (header.size() < 8 || static_cast<unsigned char>(header[0]) != 0x55 ||
      static_cast<unsigned char>(header[1]) != 0xAA || header.compare(4, 4, "HdrS") != 0)
    return "is not a bzImage (no x86 boot header: 0xAA55 at 0x1FE and \"HdrS\" at 0x202)";
  return "";
}

std::string BzImageRelease(const std::string& path) {
  if (!BzImageProblem(path).empty()) return "";
  // kernel_version (0x20E) points 0x200 bytes before the NUL-terminated version string.
  const std::string ptr = ReadAt(path, 0x20E, 2);
  if (ptr.size() < 2) return "";
  const unsigned offset = static_cast<unsigned char>(ptr[0]) | static_cast<unsigned char>(ptr[1]) << 8;
  if (offset == 0) return "";
  const std::string version = ReadAt(path, offset + 0x200, 128);
  const size_t end = version.find_first_of(std::string(" \0", 2));
  return version.substr(0, end);
}

std::string StaticAgentProblem(const std::string& path) {
  if (std::string why = RegularFileProblem(path); !why.empty()) return why;
  const std::string head = ReadAt(path, 0, sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh{};
  if (head.size() < sizeof eh || head.compare(0, SELFMAG, ELFMAG) != 0)
    return "is not an ELF executable";
  std::memcpy(&eh, head.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
    return "is not an x86-64 ELF executable";
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) return "is an ELF file but not an executable";
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 256)
    return "is an ELF file without a usable program header table";
  const std::string table = ReadAt(path, eh.e_phoff, size_t(eh.e_phnum) * sizeof(Elf64_Phdr));
  if (table.size() < size_t(eh.e_phnum) * sizeof(Elf64_Phdr))
    return "is a truncated ELF file";
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    std::memcpy(&ph, table.data() + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_INTERP)
      return "is dynamically linked; the guest has no dynamic loader (build it static, as "
             "the guest-agent target does)";
  }
  return "";
}

}  // namespace storbed

#include "images/pvh_kernel.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <lzma.h>

#include <cstring>
#include <filesystem>

#include "images/file_io.h"
#include "images/image_error.h"

namespace storbed {
namespace {

// A minimal 64-bit ELF with one PT_NOTE holding one note of `type` named `name`.
std::string ElfWithNote(uint32_t type, std::string_view name = std::string_view("Xen\0", 4)) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, 4);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_phoff = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  Elf64_Nhdr nh{.n_namesz = static_cast<Elf64_Word>(name.size()), .n_descsz = 4, .n_type = type};
  std::string note(reinterpret_cast<const char*>(&nh), sizeof nh);
  note += std::string(name) + std::string((4 - name.size() % 4) % 4, '\0') +
          std::string("\x00\x00\x00\x01", 4);
  Elf64_Phdr ph{};
  ph.p_type = PT_NOTE;
  ph.p_offset = sizeof eh + sizeof ph;
  ph.p_filesz = note.size();
  return std::string(reinterpret_cast<const char*>(&eh), sizeof eh) +
         std::string(reinterpret_cast<const char*>(&ph), sizeof ph) + note;
}

std::string Xz(const std::string& data) {
  std::string out(data.size() + 1024, '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, nullptr,
                                    reinterpret_cast<const uint8_t*>(data.data()), data.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

// A bzImage as the boot protocol lays it out: setup sectors, then the payload at
// payload_offset of the protected-mode part; the build appends the uncompressed size.
std::string BzImage(const std::string& payload) {
  std::string bz(5 * 512, '\0');  // setup_sects = 4, plus the boot sector
  bz[0x1f1] = 4;
  const uint32_t magic = 0x53726448, offset = 0x100, length = payload.size() + 4;
  const uint16_t version = 0x20f;
  std::memcpy(&bz[0x202], &magic, 4);
  std::memcpy(&bz[0x206], &version, 2);
  std::memcpy(&bz[0x248], &offset, 4);
  std::memcpy(&bz[0x24c], &length, 4);
  bz += std::string(offset, 'S') + payload + std::string("\x10\x20\x30\x00", 4);
  return bz;
}

TEST(PvhKernelTest, AnXzBzImageWithAPvhNoteGivesItsVmlinux) {
  const std::string elf = ElfWithNote(18);
  std::string why;
  const auto vmlinux = PvhVmlinuxOf("vmlinuz-t", BzImage(Xz(elf)), &why);
  ASSERT_TRUE(vmlinux.has_value()) << why;
  EXPECT_EQ(*vmlinux, elf);
}

TEST(PvhKernelTest, AKernelWithoutThePvhNoteBootsAsItIs) {
  std::string why;
  EXPECT_FALSE(PvhVmlinuxOf("vmlinuz-t", BzImage(Xz(ElfWithNote(17))), &why));
  EXPECT_EQ(why, "the kernel has no PVH entry note (CONFIG_PVH is off)");
  EXPECT_FALSE(HasPvhEntry(ElfWithNote(18, std::string_view("Xem\0", 4)), &why))
      << "type 18 under another name is not the PVH entry";
}

TEST(PvhKernelTest, OtherCompressionsAndOtherFilesAreNotUnpacked) {
  std::string why;
  EXPECT_FALSE(PvhVmlinuxOf("k", BzImage("\x1f\x8b\x08 gzip data"), &why));
  EXPECT_EQ(why, "the payload is neither xz nor zstd");
  EXPECT_FALSE(PvhVmlinuxOf("k", ElfWithNote(18), &why));
  EXPECT_EQ(why, "not a bzImage of boot protocol 2.08 or later");
}

TEST(PvhKernelTest, ACorruptPayloadIsAnErrorNamingTheKernel) {
  std::string xz = Xz(ElfWithNote(18));
  xz.resize(xz.size() / 2);
  std::string why;
  try {
    PvhVmlinuxOf("/boot/vmlinuz-cut", BzImage(xz), &why);
    FAIL() << "a cut xz payload decoded";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), "/boot/vmlinuz-cut");
    EXPECT_NE(std::string(e.what()).find("corrupt or truncated xz payload"), std::string::npos)
        << e.what();
  }
}

TEST(PvhKernelTest, BootableKernelCachesTheVmlinuxByTheKernelsHash) {
  const std::string dir = ::testing::TempDir() + "/pvh-kernel-cache";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string kernel = dir + "/vmlinuz-t";
  WriteFileAtomic(kernel, BzImage(Xz(ElfWithNote(18))));
  std::string note;
  const std::string path = BootableKernel(kernel, "abc", dir + "/cache", &note);
  EXPECT_EQ(path, dir + "/cache/vmlinux-abc");
  EXPECT_EQ(ReadFileBytes(path), ElfWithNote(18));
  EXPECT_NE(note.find("made"), std::string::npos) << note;
  EXPECT_EQ(BootableKernel(kernel, "abc", dir + "/cache", &note), path);
  EXPECT_NE(note.find("cached"), std::string::npos) << note;

  WriteFileAtomic(kernel, BzImage(Xz(ElfWithNote(1))));
  EXPECT_EQ(BootableKernel(kernel, "def", dir + "/cache", &note), kernel);
  EXPECT_EQ(note, "the bzImage itself (the kernel has no PVH entry note (CONFIG_PVH is off))");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace storbed

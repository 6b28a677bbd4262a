#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace storbed {

std::string FileKindName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
  }
  return "of unknown kind";
}

std::string ReadInputFile(const std::string& path, const std::string& what, uint64_t max_bytes) {
  const std::string prefix = path + ": the " + what;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputFileError(prefix + " cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string kind = FileKindName(st.st_mode);
    close(fd);
    throw InputFileError(prefix + " is " + kind + ", not a regular file");
  }
  // Read up to the limit whatever st_size says (/proc files report 0).
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      close(fd);
      throw InputFileError(prefix + " cannot be read: " + why);
    }
    if (n == 0) break;
    text.append(buf, n);
    if (text.size() > max_bytes) {
      close(fd);
      throw InputFileError(prefix + " is larger than " + std::to_string(max_bytes >> 20) +
                           " MiB, the limit for it");
    }
  }
  close(fd);
  return text;
}

}  // namespace storbed

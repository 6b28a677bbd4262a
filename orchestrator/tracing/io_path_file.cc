#include "tracing/io_path_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "unique_fd.h"

namespace storbed {
namespace {

class ZstdFile {
 public:
  explicit ZstdFile(const std::string& path)
      : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
    if (!fd_) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    ctx_ = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(ctx_, ZSTD_c_compressionLevel, 3);
    out_.resize(ZSTD_CStreamOutSize());
  }
  ~ZstdFile() { ZSTD_freeCCtx(ctx_); }
  void Write(const std::string& text) { Push(text, ZSTD_e_continue); }
  void Close() { Push("", ZSTD_e_end); }

 private:
  void Push(const std::string& text, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{text.data(), text.size(), 0};
    for (;;) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      const size_t left = ZSTD_compressStream2(ctx_, &out, &in, mode);
      if (ZSTD_isError(left))
        throw std::runtime_error("zstd failed on " + path_ + ": " + ZSTD_getErrorName(left));
      for (size_t done = 0; done < out.pos;) {
        const ssize_t n = ::write(fd_.get(), out_.data() + done, out.pos - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
        done += size_t(n);
      }
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) return;
    }
  }

  std::string path_;
  UniqueFd fd_;
  ZSTD_CCtx* ctx_ = nullptr;
  std::vector<char> out_;
};

}  // namespace

std::string PointColumn(PathPoint p) {
  std::string s = PathPointName(p);
  for (char& c : s)
    if (c == ' ') c = '_';
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s + "_ns";
}

uint64_t WriteIoPathFile(const std::string& path, const PathJoin& join, uint64_t cap) {
  ZstdFile file(path);
  // The queued time is in no segment but in the application's depth: kept too.
  std::vector<PathPoint> columns = {PathPoint::AppQueued};
  columns.insert(columns.end(), join.points.begin(), join.points.end());
  std::string text = "offset\tbytes\twrite\tjoined";
  for (const PathPoint p : columns) text += "\t" + PointColumn(p);
  text += "\n";
  uint64_t written = 0;
  for (const TracedPath& io : join.paths) {
    if (written == cap) break;
    text += std::to_string(io.offset) + '\t' + std::to_string(io.bytes) + '\t' +
            (io.write ? '1' : '0') + '\t' + (io.joined ? '1' : '0');
    for (const PathPoint p : columns) text += '\t' + std::to_string(io.At(p));
    text += '\n';
    ++written;
    if (text.size() > (1 << 20)) {
      file.Write(text);
      text.clear();
    }
  }
  file.Write(text);
  file.Close();
  return written;
}

}  // namespace storbed

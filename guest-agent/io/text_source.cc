#include "text_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "unique_fd.h"

namespace storbed {
namespace {

class RealTextFile : public TextFile {
 public:
  RealTextFile(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {
    buf_.resize(16384);
  }

  std::optional<std::string_view> Read() override {
    size_t len = 0;
    while (true) {
      if (len == buf_.size()) buf_.resize(buf_.size() * 2);  // grows once, then stays
      const ssize_t n = pread(fd_.get(), buf_.data() + len, buf_.size() - len, off_t(len));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error_ = "pread(" + path_ + ") failed: " + std::strerror(errno);
        return std::nullopt;
      }
      if (n == 0) break;
      len += size_t(n);
    }
    return std::string_view(buf_.data(), len);
  }
  const std::string& error() const override { return error_; }

 private:
  UniqueFd fd_;
  std::string path_;
  std::string buf_;
  std::string error_;
};

class RealSource : public TextSource {
 public:
  std::unique_ptr<TextFile> Open(const std::string& path, std::string* error) const override {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      if (error) *error = "cannot open " + path + ": " + std::strerror(errno);
      return nullptr;
    }
    return std::make_unique<RealTextFile>(std::move(fd), path);
  }

  std::optional<std::vector<std::string>> List(const std::string& dir) const override {
    DIR* d = opendir(dir.c_str());
    if (!d) return std::nullopt;
    std::vector<std::string> names;
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
    return names;
  }
};

}  // namespace

const TextSource& RealTextSource() {
  static const RealSource source;
  return source;
}

}  // namespace storbed

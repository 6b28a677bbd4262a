// Tests only: a TextSource over recorded fixture texts. Each Read() of a file returns
// its next recorded text (the last one repeats), so a test scripts a file's changes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "text_source.h"

namespace storbed {

class FakeTextSource : public TextSource {
 public:
  void Set(const std::string& path, std::vector<std::string> texts) {
    files_[path] = std::make_shared<std::vector<std::string>>(std::move(texts));
  }
  void SetDir(const std::string& dir, std::vector<std::string> names) { dirs_[dir] = names; }

  std::unique_ptr<TextFile> Open(const std::string& path, std::string* error) const override {
    const auto it = files_.find(path);
    if (it == files_.end()) {
      if (error) *error = "cannot open " + path + ": No such file or directory";
      return nullptr;
    }
    return std::make_unique<File>(it->second);
  }
  std::optional<std::vector<std::string>> List(const std::string& dir) const override {
    const auto it = dirs_.find(dir);
    if (it == dirs_.end()) return std::nullopt;
    return it->second;
  }

 private:
  class File : public TextFile {
   public:
    explicit File(std::shared_ptr<std::vector<std::string>> texts) : texts_(std::move(texts)) {}
    std::optional<std::string_view> Read() override {
      if (texts_->empty()) return std::nullopt;
      const std::string& t = (*texts_)[std::min(next_, texts_->size() - 1)];
      ++next_;
      return std::string_view(t);
    }
    const std::string& error() const override { return error_; }

   private:
    std::shared_ptr<std::vector<std::string>> texts_;
    size_t next_ = 0;
    std::string error_ = "read failed (fixture has no text)";
  };

  std::map<std::string, std::shared_ptr<std::vector<std::string>>> files_;
  std::map<std::string, std::vector<std::string>> dirs_;
};

}  // namespace storbed

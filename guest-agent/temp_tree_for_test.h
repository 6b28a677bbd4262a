// Tests only: a temporary directory tree (a fake /sys or /dev), removed on scope exit.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace storbed::agent {

class TempTree {
 public:
  TempTree() {
    std::string pattern = (std::filesystem::temp_directory_path() / "storbed-agent-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    root_ = pattern;
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // Writes root/relative, creating parent directories.
  void Write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  void MakeDir(const std::string& relative) const {
    std::filesystem::create_directories(root_ / relative);
  }

 private:
  std::filesystem::path root_;
};

}  // namespace storbed::agent

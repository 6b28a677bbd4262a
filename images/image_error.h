// The one error type of the image builder: a sentence a user can act on, plus the file it is
// about, so callers (the CLI, the runner) can report or test on the path without parsing text.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "error.h"

namespace storbed {

class ImageError : public Error {
 public:
  // `message` is the whole sentence (it names the path itself); `path` is the file or
  // directory the error is about, "" when there is none.
  ImageError(std::string path, const std::string& message)
      : Error(ErrorKind::Host, message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace storbed

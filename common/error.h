// storbed's one error model: the thrower says what went wrong (an ErrorKind), never which exit
// code; RunMain maps the kind to the exit code in one place (exit_codes.h).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace storbed {

enum class ErrorKind {
  BadInput,     // the user's input: a flag, a scenario, a results dir, a history file
  Host,         // the host or its environment: a file system, a device, SQLite's I/O
  Internal,     // storbed itself: a bug, or a failure nothing above names
  Interrupted,  // Ctrl-C, SIGTERM or another handled fatal signal (backend/interrupt.h)
};

// An error with its kind; what() is the sentence printed after "storbed: ".
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// The kind of anything thrown: an Error's own; std::invalid_argument (a value a check refused)
// is bad input; std::system_error (errno from the OS, std::filesystem) is the host; anything
// else is internal.
ErrorKind KindOf(const std::exception& e);

}  // namespace storbed

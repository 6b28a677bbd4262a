// The storbed command line. RunMain parses argv, runs the command, catches every
// error in one place and prints "storbed: <sentence>".
#pragma once

namespace storbed {

// Returns the exit code: a command's own outcome, or the one its error's kind maps to
// (exit_codes.h, the table README.md documents).
int RunMain(int argc, char** argv);

}  // namespace storbed

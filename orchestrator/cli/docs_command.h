// The hidden `storbed manpage` and `storbed completion` commands: the build runs them to write
// the man pages and the bash completion the package installs.
#pragma once

#include <CLI/CLI.hpp>

namespace storbed {

// Adds both (hidden from --help) to `app`; call after every other command is added, since they
// describe the tree they find at parse time. The exit code is stored in *exit_code.
void AddDocsCommands(CLI::App& app, int* exit_code);

}  // namespace storbed

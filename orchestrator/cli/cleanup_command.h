// `storbed cleanup`: removes what killed runs left (libvirt domains and volumes, stray
// QEMU, loop devices, work dirs, sockets) and prints one line per item.
#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace storbed {

// Registers the subcommand on `app`. Its callback runs the cleanup during app.parse()
// and stores the exit code in *exit_code: 0 all went well, 1 something could not be
// looked at or removed (each said on stderr). It throws bad input (a missing --work-dir, an
// unreadable inventory) or the host's failure, as "cleanup: <sentence>", out of app.parse().
CLI::App* AddCleanupCommand(CLI::App& app, int* exit_code);

}  // namespace storbed

#include "cli/cleanup_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cleanup/cleanup_options.h"
#include "cleanup/cleanup_run.h"
#include "error.h"
#include "exit_codes.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

// A --work-dir or --results the user named must be a directory: a typo would otherwise
// scan nothing and report a clean host (exit 0), or count as a failed removal (exit 1).
void CheckCleanupDirs(const CleanupOptions& options) {
  for (const auto& [flag, dirs] : {std::pair{"--work-dir", &options.work_dirs},
                                   std::pair{"--results", &options.results_dirs}}) {
    for (const std::string& dir : *dirs) {
      std::error_code ec;
      if (!fs::exists(dir, ec))
        throw std::invalid_argument(std::string(flag) + " " + dir + ": does not exist");
      if (!fs::is_directory(dir, ec))
        throw std::invalid_argument(std::string(flag) + " " + dir + ": is not a directory");
    }
  }
}

}  // namespace

CLI::App* AddCleanupCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<CleanupOptions>();
  auto* cmd = app.add_subcommand(
      "cleanup",
      "Remove what killed runs left: storbed-* libvirt domains and their volumes, stray QEMU, "
      "loop devices, storbed-work-* dirs, sockets. Never touches a live run's.");
  cmd->add_option("--connect", options->uris,
                  "libvirt URI to clean (repeatable; default qemu:///system)")
      ->allow_extra_args(false);
  cmd->add_option("--inventory", options->inventory,
                  "Also clean every host \"uri\" of this inventory file");
  cmd->add_option("--work-dir", options->work_dirs,
                  "Where runs make storbed-work-* and storbed-agent-* dirs (repeatable; default "
                  "/var/tmp)")
      ->allow_extra_args(false);
  cmd->add_option("--results", options->results_dirs,
                  "Results dir whose leftover agent.sock / qmp.sock to remove (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--no-libvirt", options->no_libvirt, "Leave libvirt alone: this host only");
  cmd->add_flag("--dry-run", options->dry_run, "List what would be removed; change nothing");
  cmd->add_flag("--shared-volumes", options->shared_volumes,
                "Also remove the shared kernel and initrd volumes no domain uses (a cache: "
                "the next run uploads them again)");
  cmd->add_flag("--force", options->force,
                "Also remove what cannot be checked: owners on another host, no owner record");
  cmd->callback([options, exit_code] {
    try {
      CheckCleanupDirs(*options);
      RealHostActions actions(options->proc_root);
      const auto scanners = MakeCleanupScanners(*options, actions);
      const CleanupTally tally = RunScanners(
          scanners, {.dry_run = options->dry_run, .force = options->force}, std::cout, std::cerr);
      *exit_code = tally.failures == 0 ? kExitOk : kExitFailed;
    } catch (const std::exception& e) {  // named as cleanup's, of the kind it was
      throw Error(KindOf(e), "cleanup: " + std::string(e.what()));
    }
  });
  return cmd;
}

}  // namespace storbed

#include "cli/docs_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/cli_docs.h"
#include "cli/verdict_options.h"
#include "version.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string Version() { return std::string(kStorbedVersion) + " (" + kGitRevision + ")"; }

void WritePages(const CLI::App& root, const std::string& dir) {
  fs::create_directories(dir);
  for (const std::string& page : ManPageNames(root)) {
    const std::string path = dir + "/" + page + ".1";
    std::ofstream out(path, std::ios::trunc);
    out << ManPage(root, page, Version());
    if (!out.flush()) throw std::runtime_error("manpage: cannot write " + path);
  }
}

}  // namespace

void AddDocsCommands(CLI::App& app, int* exit_code) {
  struct Args {
    std::string page = "storbed", dir;
    bool list = false;
  };
  auto args = std::make_shared<Args>();
  auto* man = app.add_subcommand("manpage", "Print a man page (roff)")->group("");
  man->add_option("page", args->page, "storbed, storbed-run, storbed-image-build, ...");
  man->add_option("--dir", args->dir, "Write every page as DIR/PAGE.1 instead");
  man->add_flag("--list", args->list, "List the pages' names");
  SetExitCallback(*man, exit_code, [&app, args] {
    if (args->list)
      for (const std::string& page : ManPageNames(app)) std::cout << page << "\n";
    else if (!args->dir.empty())
      WritePages(app, args->dir);
    else
      std::cout << ManPage(app, args->page, Version());
    return 0;
  });
  auto* completion =
      app.add_subcommand("completion", "Print the bash completion script")->group("");
  SetExitCallback(*completion, exit_code, [&app] {
    std::cout << BashCompletion(app);
    return 0;
  });
}

}  // namespace storbed

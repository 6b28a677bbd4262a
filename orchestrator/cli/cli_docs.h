// The man pages and the bash completion, generated from the CLI11 tree that parses argv (and
// the scenario field table), so neither can drift from --help or from the parser.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace storbed {

// Every page's name: "storbed", then one per command that runs something, e.g. "storbed-run",
// "storbed-image-build", "storbed-history-import". Hidden commands have none.
std::vector<std::string> ManPageNames(const CLI::App& root);

// The page in man(7) roff. Throws std::invalid_argument naming an unknown page.
std::string ManPage(const CLI::App& root, const std::string& page, const std::string& version);

// A bash completion script: commands, each command's options, scenario files and
// directories where a command takes them, field names after `storbed scenario explain`.
std::string BashCompletion(const CLI::App& root);

}  // namespace storbed

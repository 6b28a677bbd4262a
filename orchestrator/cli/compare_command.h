// `storbed compare BASE [CAND] [--by FIELD] [--alpha A] [--noise PCT] [--json]`: reads
// results directories and prints the verdict (reports/compare.h). Exit codes: 0 no cell
// worse, 4 some cell worse, 5 not comparable (an environment item differs that
// --allow-diff does not name), 2 bad input (the message names the directory, file or field).
#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace storbed {

// Adds the subcommand; it runs inside app.parse() and sets *exit_code.
CLI::App* AddCompareCommand(CLI::App& app, int* exit_code);

}  // namespace storbed

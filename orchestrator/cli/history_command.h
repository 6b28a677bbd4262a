// `storbed history DB [--scenario S] [--cell PATTERN] [--metric M] [--since DATE] [--json]`:
// per cell the nightly series of a metric and its change points; `storbed history import
// DIR... --history DB` appends existing results directories; `storbed history migrate FROM
// TO` copies one history into another. DB is an SQLite file or a postgresql:// URI. Exit 0,
// 2 for bad input (the message names the database or directory; the database is left as it
// was), 1 when the host failed (SQLite's I/O error on the file, a server out of reach).
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace storbed {

// The --history option's help, the same wherever a command takes one.
inline constexpr const char* kHistoryDbHelp =
    "History database: an SQLite file, or postgresql://USER@HOST/DB (no password: use "
    "~/.pgpass, PGSERVICE or peer authentication; docs/history.md)";

// Adds the subcommand; it runs inside app.parse() and sets *exit_code.
CLI::App* AddHistoryCommand(CLI::App& app, int* exit_code);

// `storbed run --history DB`: appends the finished run's directory; one line to `log`.
void AppendRunToHistory(const std::string& db, const std::string& results_dir, std::ostream& log);

}  // namespace storbed

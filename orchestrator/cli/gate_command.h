// `storbed gate RESULTS --history DB [--baseline last:7|rev:R|date:D] [--junit FILE]`:
// tonight's runs against a baseline drawn from the history (sessions of the same
// scenario whose environment the gate accepts), with compare's verdicts. Exit 0 pass,
// 4 some cell worse, 5 not comparable, 6 cannot judge, 2 bad input, 1 the host failed (SQLite
// I/O, a history server out of reach); nothing is written to the database.
#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace storbed {

// Adds the subcommand; it runs inside app.parse() and sets *exit_code.
CLI::App* AddGateCommand(CLI::App& app, int* exit_code);

}  // namespace storbed

// The rows of the bad-input table (bad_input_table_test.cc): what a user gave, how they
// ran storbed or storbed-agent, and the one stderr line that must come back with exit 2.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace storbed::testing {

// A file a row puts in its private directory before running. "$D" in `text` is that
// directory. Sparse: a file of 16 MiB that is one hole; Symlink: a link to `text`.
struct InputFile {
  enum class Kind { Text, Fifo, Dir, Sparse, Symlink };
  std::string path;  // relative to the row's directory
  std::string text;
  Kind kind = Kind::Text;
};

struct BadInput {
  std::string name;                // the test's name: what the input is
  std::vector<InputFile> files;
  std::vector<std::string> argv;   // argv[0] is "storbed" or "storbed-agent"; "$D" expands
  std::string message;             // the whole stderr line; "$D" expands
};

inline void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

// `n` copies of `c` in a row's file, argv or message, written out only when the row runs
// (the table's Expand): every test process builds the table, and megabytes of rows made each
// one spend 0.4 s starting.
inline std::string Repeated(size_t n, char c) {
  return "$REPEAT{" + std::to_string(n) + ":" + std::string(1, c) + "}";
}

// A valid bare-metal scenario, for rows whose bad input is elsewhere.
inline constexpr const char* kGoodScenario =
    R"({"name": "s", "targets": ["bare-metal"], "disk": {"size": "16m"}, "jobs": [{"name": "j"}]})";

// What `storbed run` reads: scenarios, fio job files, inventories, host paths.
std::vector<BadInput> RunInputCases();
// The rest: results directories, standalone agent jobs, flags of every command.
std::vector<BadInput> ToolInputCases();

}  // namespace storbed::testing

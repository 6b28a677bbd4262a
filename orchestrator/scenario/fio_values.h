// A fio job file's option syntax: one option as written, fio's value forms (booleans,
// sizes, whole numbers, durations) and the errors gathered so that one message names
// every problem of the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario/name_rule.h"
#include "scenario/scenario.h"

namespace storbed {

struct Option {
  std::string key, value;
  int line = 0;
};

// Errors are gathered so one message names every problem of the file; ThrowIfAny throws
// ScenarioError.
class Problems {
 public:
  explicit Problems(std::string path) : path_(std::move(path)) {}
  // `text` quotes the file's own words ('ioengine=sp<ESC>dk'): their control characters
  // are escaped, so the message cannot drive the user's terminal.
  void Add(int line, const std::string& text) {
    items_.push_back(path_ + ":" + std::to_string(line) + ": " + EscapedControlCharacters(text));
  }
  void ThrowIfAny() const {
    if (items_.empty()) return;
    std::string all;
    for (const auto& i : items_) all += (all.empty() ? "" : "; ") + i;
    throw ScenarioError(all);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> items_;
};

std::string Trim(const std::string& s);
std::string Lower(std::string s);
// fio's 1/0, true/false, yes/no, on/off; anything else is a problem (and false).
bool ParseBool(const Option& o, Problems& p);
// A size like 4k or 1m, as the scenario takes it; nullopt after adding a problem.
std::optional<uint64_t> Bytes(const Option& o, const std::string& text, Problems& p);
std::optional<int64_t> Integer(const Option& o, Problems& p);
// fio runtime: seconds, or a number with s, m, h, ms or us.
std::optional<double> Seconds(const Option& o, Problems& p);

}  // namespace storbed

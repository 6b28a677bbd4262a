// storbed-calibrate [NAME...] [--reps N] [--seed S]: runs the named calibrations (all by
// default) and prints what each measured. `--list` names them.
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

#include "calibration.h"

namespace storbed {
namespace {

std::vector<Calibration>& Table() {
  static std::vector<Calibration> table;
  return table;
}

uint64_t Number(const std::string& flag, const char* text) {
  char* end = nullptr;
  const unsigned long long v = text ? std::strtoull(text, &end, 10) : 0;
  if (!text || *end || !*text) throw std::invalid_argument(flag + " takes a whole number");
  return v;
}

int RunMain(int argc, char** argv) {
  CalibrationArgs args;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps")
      args.reps = Number(a, i + 1 < argc ? argv[++i] : nullptr);
    else if (a == "--seed")
      args.seed = Number(a, i + 1 < argc ? argv[++i] : nullptr);
    else if (a == "--list") {
      for (const Calibration& c : Calibrations()) std::cout << c.name << "\t" << c.help << "\n";
      return 0;
    } else
      names.push_back(a);
  }
  for (const std::string& n : names) {
    bool known = false;
    for (const Calibration& c : Calibrations()) known |= c.name == n;
    if (!known) throw std::invalid_argument("no calibration named " + n + " (--list names them)");
  }
  for (const Calibration& c : Calibrations()) {
    bool wanted = names.empty();
    for (const std::string& n : names) wanted |= n == c.name;
    if (!wanted) continue;
    std::cout << "== " << c.name << ": " << c.help << " (seed " << args.seed << ")\n";
    c.run(args, std::cout);
    std::cout << std::flush;
  }
  return 0;
}

}  // namespace

bool RegisterCalibration(Calibration c) {
  for (const Calibration& e : Table())
    if (e.name == c.name) throw std::logic_error("calibration " + c.name + " registered twice");
  Table().push_back(std::move(c));
  return true;
}

const std::vector<Calibration>& Calibrations() { return Table(); }

}  // namespace storbed

int main(int argc, char** argv) {
  try {
    return storbed::RunMain(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "storbed-calibrate: " << e.what() << "\n";
    return 2;
  }
}

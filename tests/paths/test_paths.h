#pragma once

#include <string>

namespace storbed {
// Where this build's sources, build dir and programs are, for tests. Defined in
// test_paths.cc, the one file compiled with the paths: a clone at a new path (CI clones to
// a fresh dir each time) misses ccache in that file only, not in every test that names one.
std::string TestSourceDir();
std::string TestBinaryDir();
std::string TestAgentPath();  // the storbed-agent this build made
std::string TestCliPath();    // the storbed this build made
}  // namespace storbed

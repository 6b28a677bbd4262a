// The storbed command line. RunMain parses argv, runs the command, catches every
// error in one place and prints "storbed: <sentence>".
#pragma once

namespace storbed {

// Exit codes: 0 ok, 1 internal or setup error, 2 bad input (usage, scenario),
// 3 some runs failed, 130 interrupted.
int RunMain(int argc, char** argv);

}  // namespace storbed

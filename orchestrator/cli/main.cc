#include "cli/cli.h"

int main(int argc, char** argv) { return storbed::RunMain(argc, argv); }

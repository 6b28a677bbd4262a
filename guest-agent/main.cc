// storbed-agent: /init of a storbed guest, or the bare-metal agent on a host.
#include "run_agent.h"

int main(int argc, char** argv) { return storbed::agent::RunMain(argc, argv); }

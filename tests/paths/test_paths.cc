#include "test_paths.h"

namespace storbed {
std::string TestSourceDir() { return STORBED_SOURCE_DIR; }
std::string TestBinaryDir() { return STORBED_BINARY_DIR; }
std::string TestAgentPath() { return STORBED_AGENT_PATH; }
std::string TestCliPath() { return STORBED_CLI_PATH; }
}  // namespace storbed

#include "run/scenario_explain.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace storbed {
namespace {

TEST(ScenarioExplainTest, OneFieldByShortOrQualifiedName) {
  const std::string text = ExplainFields("job.bs");
  EXPECT_EQ(text, ExplainFields("bs"));
  EXPECT_NE(text.find("job.bs  (size, bytes)"), std::string::npos) << text;
  EXPECT_NE(text.find("default: \"4k\""), std::string::npos) << text;
}

TEST(ScenarioExplainTest, EnumListsItsValues) {
  EXPECT_NE(ExplainFields("disk.aio").find("allowed: threads, native, io_uring"),
            std::string::npos);
}

TEST(ScenarioExplainTest, UnknownFieldIsAnError) {
  EXPECT_THROW(ExplainFields("job.bsz"), std::invalid_argument);
}

// docs/scenarios.md is generated; regenerate it with
// `build/orchestrator/storbed scenario explain --markdown > docs/scenarios.md`.
TEST(ScenarioExplainTest, DocsScenariosMdIsCurrent) {
  std::ifstream in(std::string(STORBED_SOURCE_DIR) + "/docs/scenarios.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), ScenarioReferenceMarkdown());
}

}  // namespace
}  // namespace storbed

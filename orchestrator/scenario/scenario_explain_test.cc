#include "scenario/scenario_explain.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_paths.h"

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

TEST(ScenarioExplainTest, NamesFiosOptionWhereItMapsOneToOne) {
  EXPECT_NE(ExplainFields("job.io_size").find("fio: io_size"), std::string::npos);
  EXPECT_EQ(ExplainFields("job.stride").find("fio:"), std::string::npos);
}

TEST(ScenarioExplainTest, UnknownFieldIsAnError) {
  EXPECT_THROW(ExplainFields("job.bsz"), std::invalid_argument);
}

// docs/scenarios.md is generated; regenerate it with
// `build/orchestrator/storbed scenario explain --markdown > docs/scenarios.md`.
// (or run this test with STORBED_UPDATE_DOCS=1, which rewrites the file first).
TEST(ScenarioExplainTest, DocsScenariosMdIsCurrent) {
  const std::string path = TestSourceDir() + "/docs/scenarios.md";
  if (std::getenv("STORBED_UPDATE_DOCS")) std::ofstream(path) << ScenarioReferenceMarkdown();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), ScenarioReferenceMarkdown());
}

}  // namespace
}  // namespace storbed

#include "queue_rules.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace storbed::agent {
namespace {

namespace fs = std::filesystem;

TEST(QueueRulesTest, AssignmentsCountMatchesDoNot) {
  const std::string text =
      "# ATTR{queue/scheduler}=\"none\" in a comment\n"
      "ACTION==\"add\", KERNEL==\"vd[a-z]\", ATTR{queue/scheduler}=\"none\"\n"
      "KERNEL==\"sd*\", ATTR{queue/scheduler}==\"mq-deadline\", GOTO=\"end\"\n"
      "SUBSYSTEM==\"block\", ATTR{bdi/read_ahead_kb}:=\"1024\"\n"
      "\n"
      "KERNEL==\"nvme*\", ATTR{queue/nr_requests} = \"64\"\n"
      "KERNEL==\"sd*\", RUN+=\"/sbin/blockdev --setra 4096 /dev/%k\"\n"
      "KERNEL==\"vd*\", ATTR{queue/rotational}=\"0\"\n";
  const auto rules = QueueRulesIn("/etc/udev/rules.d/60-io.rules", text);
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].line, 2u);
  EXPECT_EQ(rules[0].text, "ACTION==\"add\", KERNEL==\"vd[a-z]\", ATTR{queue/scheduler}=\"none\"");
  EXPECT_EQ(rules[1].line, 4u);
  EXPECT_EQ(rules[2].line, 6u);
  EXPECT_EQ(rules[3].line, 7u);
  EXPECT_EQ(rules[3].file, "/etc/udev/rules.d/60-io.rules");
}

TEST(QueueRulesTest, EtcHidesTheDistributionsFileOfTheSameNameAndTunedIsRead) {
  const fs::path root = fs::temp_directory_path() / ("queue-rules-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "etc/udev/rules.d");
  fs::create_directories(root / "usr/lib/udev/rules.d");
  std::ofstream(root / "usr/lib/udev/rules.d/60-block.rules")
      << "KERNEL==\"vd*\", ATTR{queue/read_ahead_kb}=\"4096\"\n";
  std::ofstream(root / "usr/lib/udev/rules.d/70-other.rules")
      << "KERNEL==\"sd*\", ATTR{queue/scheduler}=\"bfq\"\n";
  std::ofstream(root / "etc/udev/rules.d/60-block.rules") << "# disabled by the admin\n";
  std::ofstream(root / "etc/udev/rules.d/README") << "ATTR{queue/scheduler}=\"x\"\n";
  EXPECT_EQ(ReadTunedProfile(root), "");
  fs::create_directories(root / "etc/tuned");
  std::ofstream(root / "etc/tuned/active_profile") << "virtual-guest\n";

  const auto rules = FindQueueRules(root);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].file, "/usr/lib/udev/rules.d/70-other.rules");
  EXPECT_EQ(ReadTunedProfile(root), "virtual-guest");
  EXPECT_TRUE(FindQueueRules(root / "missing").empty());
  fs::remove_all(root);
}

}  // namespace
}  // namespace storbed::agent

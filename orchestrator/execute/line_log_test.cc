#include "execute/line_log.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

namespace storbed {
namespace {

TEST(LineLogTest, PrefixesEveryWholeLineAndHoldsPartialOnes) {
  std::ostringstream out;
  LogSink sink(out);
  {
    LineLog log(sink, "[lab1] ");
    log << "booting " << 2 << " guests..." << std::flush;
    EXPECT_EQ(out.str(), "");  // a flush does not cut a line
    log << "\n  done\n" << "unterminated";
  }
  EXPECT_EQ(out.str(), "[lab1] booting 2 guests...\n[lab1]   done\n[lab1] unterminated\n");
}

TEST(LineLogTest, NoPrefixWritesTheTextUnchanged) {
  std::ostringstream out;
  LogSink sink(out);
  LineLog(sink, "") << "accelerator: tcg (x)\n";
  EXPECT_EQ(out.str(), "accelerator: tcg (x)\n");
}

// Regression: two hosts' threads writing at once gave lines like "[a] 12[b] 34".
TEST(LineLogTest, LinesOfThreadsWritingAtOnceNeverInterleave) {
  std::ostringstream out;
  LogSink sink(out);
  std::vector<std::thread> threads;
  for (const char* name : {"a", "b", "c"})
    threads.emplace_back([&sink, name] {
      LineLog log(sink, std::string("[") + name + "] ");
      for (int i = 0; i < 200; ++i) log << "run " << i << " of " << name << " ok\n";
    });
  for (auto& t : threads) t.join();
  std::istringstream lines(out.str());
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    const std::string name = line.substr(1, 1);
    EXPECT_EQ(line.substr(0, 4), "[" + name + "] ") << line;
    EXPECT_EQ(line.substr(line.size() - 8), " of " + name + " ok") << line;
  }
  EXPECT_EQ(count, 600u);
}

}  // namespace
}  // namespace storbed

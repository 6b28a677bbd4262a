#include "scenario/fio_command_line.h"

#include <gtest/gtest.h>

#include "scenario/scenario.h"

namespace storbed {
namespace {

std::string Why(const std::string& line) {
  try {
    FioCommandLineToJobFile(line);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(FioCommandLineTest, OptionsBeforeTheFirstNameAreGlobalAndEachNameIsAJob) {
  EXPECT_EQ(FioCommandLineToJobFile(
                "./fio --filename=fio.tmp --stonewall --size=1G --bs=4k \\\n"
                "  --name=create --rw=write \\\n"
                "  --name=cached --rw=read --loops=2 --invalidate=0"),
            "[global]\nfilename=fio.tmp\nstonewall\nsize=1G\nbs=4k\n"
            "[create]\nrw=write\n[cached]\nrw=read\nloops=2\ninvalidate=0\n");
}

TEST(FioCommandLineTest, ThePromptQuotesAndWhatTheShellDoesAfterAPipeOrCommentAreNotFios) {
  EXPECT_EQ(FioCommandLineToJobFile("$ fio --name='a b' --rw=read | grep groupid= -A 1"),
            "[a b]\nrw=read\n");
  EXPECT_EQ(FioCommandLineToJobFile(
                "fio --direct=0 --name=w --rw=write --numjobs=1 # First run (Nothing cached)"),
            "[global]\ndirect=0\n[w]\nrw=write\nnumjobs=1\n");
  EXPECT_EQ(FioCommandLineToJobFile("/usr/bin/fio --name=n --bs=\"16k\""), "[n]\nbs=16k\n");
}

TEST(FioCommandLineTest, WhatIsNoJobIsRefusedNamingTheToken) {
  EXPECT_EQ(Why("fio job.fio"),
            "--fio-args: 'job.fio' is not a fio option (options start with --; give job files "
            "with --fio)");
  EXPECT_EQ(FioCommandLineToJobFile("fio --rw=read --filename /tmp/huge --norandommap"),
            "[fio]\nrw=read\nfilename=/tmp/huge\nnorandommap\n");
  EXPECT_EQ(Why("fio --name=a --output-format=json"),
            "--fio-args: '--output-format=json' is an option of fio's program, not of a job; "
            "leave it out");
  EXPECT_EQ(Why("fio --name='a"), "--fio-args: unterminated ' quote");
  EXPECT_EQ(Why("fio --name="), "--fio-args: --name needs a value");
}

TEST(FioCommandLineTest, Seed000sLinesImportWithEachPassInvalidation) {
  const FioImport f = ImportFioSource(
      "",
      "./fio --stonewall --size=128M --ioengine=posixaio --filename=fio.tmp \\\n"
      "  --iodepth=64 --bs=4k --direct=0 \\\n"
      "  --name=create --rw=write \\\n"
      "  --name=cached --rw=randread --loops=2 --invalidate=0 \\\n"
      "  --name=invalidated --rw=randread --loops=2 --invalidate=1",
      {"nvme"});
  ASSERT_EQ(f.scenario.jobs.size(), 3u);
  const JobSpec& cached = f.scenario.jobs[1];
  const JobSpec& invalidated = f.scenario.jobs[2];
  EXPECT_EQ(cached.loops, 2u);
  EXPECT_FALSE(cached.invalidate_each_pass);
  EXPECT_EQ(cached.cache, CacheState::Keep);
  EXPECT_EQ(invalidated.loops, 2u);
  EXPECT_TRUE(invalidated.invalidate_each_pass);
  EXPECT_EQ(invalidated.cache, CacheState::Cold);
  EXPECT_EQ(invalidated.engine, Engine::IoUring) << "posixaio";
  EXPECT_EQ(invalidated.iodepth, 64u);
  EXPECT_FALSE(invalidated.direct);
}

}  // namespace
}  // namespace storbed

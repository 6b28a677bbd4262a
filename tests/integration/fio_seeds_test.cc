// The seeds' own fio command lines (../shared/seeds: fio's cache-invalidation PR 000, the
// page-cache study 001, the OSv readahead PR 003) through `storbed run --fio-args`, and
// seed 000's experiment (cached vs invalidated passes) run for real in a TCG guest and on
// bare metal.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "results/results_dir.h"
#include "test_env.h"
#include "test_paths.h"

namespace storbed {
namespace fio_seeds_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;
using testing::CliRun;
using testing::RunCli;

std::string SeedsDir() { return TestSourceDir() + "/../shared/seeds"; }

// Every command line of `text` that runs fio: a line whose first word (after a "$ "
// prompt) is fio or ./fio, joined with the lines its trailing backslashes continue.
std::vector<std::string> FioCommandLines(const std::string& text) {
  std::vector<std::string> commands;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string start = line.substr(line.find_first_not_of(" \t") == std::string::npos
                                        ? line.size()
                                        : line.find_first_not_of(" \t"));
    if (start.rfind("$ ", 0) == 0) start = start.substr(2);
    if (start.rfind("fio ", 0) != 0 && start.rfind("./fio ", 0) != 0) continue;
    std::string command = start;
    while (!command.empty() && command.back() == '\\' && std::getline(in, line))
      command += "\n" + line;
    commands.push_back(command);
  }
  return commands;
}

TEST(FioSeedsTest, EveryFioCommandLineInSeeds000And001And003Imports) {
  if (!fs::is_directory(SeedsDir())) GTEST_SKIP() << "no " << SeedsDir();
  const std::string dir = testing::ScratchDir("fio-seeds");
  size_t total = 0;
  for (const auto& entry : fs::directory_iterator(SeedsDir())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("000_", 0) != 0 && name.rfind("001_", 0) != 0 && name.rfind("003_", 0) != 0)
      continue;
    for (const std::string& command : FioCommandLines(testing::Slurp(entry.path()))) {
      SCOPED_TRACE(name + ": " + command);
      const CliRun run =
          RunCli({"run", "--dry-run", "--fio-args", command, "--work-dir", "/var/tmp"},
                 dir + "/dry-" + std::to_string(total) + ".log");
      EXPECT_EQ(run.exit, "exited with status 0") << run.log;
      ++total;
    }
  }
  std::cout << "[ seeds    ] " << total << " fio command lines\n";
  EXPECT_GE(total, 10u) << "seed 000 holds 7 fio command lines and seed 001 six";
}

// Seed 000's job: a buffered random-read file read twice, on the cache the first pass left
// (cached) and with the cache dropped before the second pass (invalidated), with a 128 MiB
// file (the seed's --size=128M) in a 512 MiB guest and on the host. The drop's time is reported beside the figure,
// and invalidate_in_runtime gives the lower, fio-style figure of the same IO.
TEST(FioSeedsTest, Seed000InvalidatedPassesReadSlowerThanCachedOnesInAGuestAndOnBareMetal) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("seed000");
  const std::string scenario = dir + "/seed000.json";
  // Seed 000's later line: buffered, iodepth 64 through posixaio (io_uring here), bs 4k.
  const std::string io = R"("ioengine": "io_uring", "iodepth": 64, "bs": "4k", "direct": false)";
  std::ofstream(scenario) << R"({
    "name": "seed000", "targets": ["virtio-blk", "bare-metal"],
    "machine": {"memory": "512m"}, "disk": {"size": "128m"},
    "jobs": [
      {"name": "create", "rw": "write", "cache": "keep", )" + io + R"(},
      {"name": "cached", "pattern": "random", "loops": 2, "cache": "keep", )" + io + R"(},
      {"name": "invalidated", "pattern": "random", "loops": 2, "invalidate_each_pass": true, )" +
                                 io + R"(},
      {"name": "fio-style", "pattern": "random", "loops": 2, "invalidate_each_pass": true,
       "invalidate_in_runtime": true, )" + io + R"(}]})";
  const std::string out = dir + "/out";
  const CliRun run = RunCli({"run", scenario, "--out", out, "--work-dir", dir, "--image-cache",
                             testing::ImageCacheDir()},
                            dir + "/cli.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  std::map<std::string, std::map<std::string, JobResult>> by_target;
  for (const auto& r : LoadResults(out)) {
    ASSERT_TRUE(r.result) << r.run_id << ": " << r.error;
    by_target[r.target][r.job.name] = *r.result;
  }
  ASSERT_EQ(by_target.size(), 2u);
  for (const auto& [target, jobs] : by_target) {
    SCOPED_TRACE(target);
    const JobResult& cached = jobs.at("cached");
    const JobResult& invalidated = jobs.at("invalidated");
    const JobResult& fio_style = jobs.at("fio-style");
    std::cout << "[ seed000  ] " << target << ": cached " << cached.iops << " IOPS, invalidated "
              << invalidated.iops << " IOPS (drop " << invalidated.invalidations_s.at(0)
              << " s), fio-style " << fio_style.iops << " IOPS (drop "
              << fio_style.invalidations_s.at(0) << " s)\n";
    EXPECT_EQ(cached.passes, 2u);
    EXPECT_TRUE(cached.invalidations_s.empty());
    EXPECT_EQ(invalidated.passes, 2u);
    ASSERT_EQ(invalidated.invalidations_s.size(), 1u);
    EXPECT_GT(invalidated.invalidations_s[0], 0);
    EXPECT_LT(invalidated.iops, cached.iops) << "the second pass read the device, not the cache";
    // The fio-style figure counts the drop: lower than the same IO without it.
    ASSERT_EQ(fio_style.invalidations_s.size(), 1u);
    const double io_only_s = fio_style.runtime_s - fio_style.invalidations_s[0];
    ASSERT_GT(io_only_s, 0);
    EXPECT_LT(fio_style.iops, fio_style.ios / io_only_s);
  }
  const std::string report = testing::Slurp(out + "/report.txt");
  EXPECT_NE(report.find("invalidated: 2 passes; cache dropped before passes 2..2 in "),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("with them (fio's way); the table shows with (invalidate_in_runtime)"),
            std::string::npos)
      << report;
}

}  // namespace fio_seeds_test
}  // namespace storbed

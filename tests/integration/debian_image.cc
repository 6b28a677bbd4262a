#include "debian_image.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "backend/child_process.h"
#include "results/results_dir.h"
#include "test_env.h"
#include "test_paths.h"
#include "unique_fd.h"

namespace storbed::testing {

std::string TrimmedLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

nlohmann::json ForeignImageScenario(const std::string& name, const std::string& image_dir,
                                    const std::string& push,
                                    const std::vector<std::string>& targets) {
  return {{"name", name},
          {"targets", targets},
          {"machine",
           {{"memory", "1g"},
            {"accel", "tcg"},
            {"boot_timeout", 300},
            {"image", image_dir + "/debian12.qcow2"},
            {"kernel", image_dir + "/vmlinuz"},
            {"initrd", image_dir + "/initrd.img"},
            {"append", TrimmedLine(Slurp(image_dir + "/append"))},
            {"agent_push", push}}},
          {"disk", {{"size", "16m"}}},
          {"jobs", {{{"name", "rand"}, {"pattern", "random"}, {"bs", "4k"}, {"io_size", "2m"}}}}};
}

nlohmann::json RunForeignScenario(const std::string& dir, const nlohmann::json& scenario,
                                  const std::vector<std::string>& targets,
                                  const std::vector<std::string>& extra_args) {
  std::ofstream(dir + "/scenario.json") << scenario.dump(2);
  std::vector<std::string> argv = {"run", dir + "/scenario.json", "--out", dir + "/out",
                                   "--agent", AgentPath()};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  const CliRun run = RunCli(argv, dir + "/cli.log");
  EXPECT_EQ(run.exit, "exited with status 0") << run.log;
  const auto records = LoadResults(dir + "/out");
  EXPECT_EQ(records.size(), targets.size());
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    EXPECT_EQ(r.accel, "tcg");
    if (!r.result) continue;
    EXPECT_GT(r.result->iops, 0);
    EXPECT_GT(r.result->mib_s, 0);
    EXPECT_GT(r.result->ios, 0u);
  }
  return nlohmann::json::parse(Slurp(dir + "/out/manifest.json"));
}

namespace {

// Runs one of the image scripts; its last line of output is the image directory. "" with
// *why when it fails.
std::string RunImageScript(const std::vector<std::string>& argv, const std::string& log,
                           std::string* why) {
  const std::string name = argv[0].substr(argv[0].rfind('/') + 1);
  ChildProcess script = ChildProcess::Start(argv, log);
  // A first build downloads ~200 MB and installs a kernel: minutes; a cached one is instant.
  if (!script.WaitFor(std::chrono::minutes(30))) {
    script.Terminate(std::chrono::seconds(5));
    *why = name + " did not finish in 30 min";
    return "";
  }
  const std::string out = Slurp(log);
  if (!script.ExitedSuccessfully()) {
    *why = name + " " + script.ExitDescription() + ": " + out;
    return "";
  }
  const std::string text = TrimmedLine(out);
  return text.substr(text.rfind('\n') + 1);
}

// An exclusive lock on a lock file beside the scripts' image cache (their default --cache),
// held while the returned fd is open. VM tests run two at a time: two tests that find no
// image both build it, and the second build's `rm -rf DIR; mv` replaced the image under the
// first test (its sha256 changed mid-run). Without the file, no lock: the build still works.
UniqueFd LockImageBuilds() {
  const std::string dir = "/var/cache/storbed/images";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  UniqueFd fd(open((dir + "/.test-image-build.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (fd) flock(fd.get(), LOCK_EX);
  return fd;
}

}  // namespace

std::string CachedDebianImageDir(const std::string& scratch,
                                 const std::vector<std::string>& options, std::string* why,
                                 const std::vector<std::string>& variant) {
  if (ProgramPath("mmdebstrap").empty()) {
    *why = "mmdebstrap is not installed (apt-get install mmdebstrap)";
    return "";
  }
  const UniqueFd build_lock = LockImageBuilds();
  const std::string scripts = TestSourceDir() + "/scripts/";
  std::vector<std::string> argv = {scripts + "make-debian-image.sh"};
  argv.insert(argv.end(), options.begin(), options.end());
  const std::string base = RunImageScript(argv, scratch + "/make-image.log", why);
  if (base.empty() || variant.empty()) return base;
  argv = {scripts + "derive-debian-image.sh", base};
  argv.insert(argv.end(), variant.begin(), variant.end());
  return RunImageScript(argv, scratch + "/derive-image.log", why);
}

}  // namespace storbed::testing

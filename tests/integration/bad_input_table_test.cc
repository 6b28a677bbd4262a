// Issue 15's bad-input table: each row is an input a user could give (a scenario, a fio
// job file, an inventory, a results directory, an agent job, a flag), run through the real
// binary without a guest. Every row must exit 2 with its exact message, the whole stderr
// line naming the file, the field and the reason. Rows run with --dry-run run again for
// real: both must refuse alike, before anything is created, and leave every input file as
// it was.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bad_input_cases.h"
#include "test_env.h"

extern char** environ;

namespace storbed {
namespace bad_input_table_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;
using testing::BadInput;
using testing::InputFile;

// `text` with every "$D" replaced by `dir` and "$AGENT" by the built agent.
std::string Expand(std::string text, const std::string& dir) {
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"$D", dir}, {"$AGENT", testing::AgentPath()}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  // testing::Repeated's "$REPEAT{N:C}".
  static const std::string repeat = "$REPEAT{";
  for (size_t at = text.find(repeat); at != std::string::npos; at = text.find(repeat, at)) {
    const size_t colon = text.find(':', at);
    const size_t n = std::stoul(text.substr(at + repeat.size(), colon - at - repeat.size()));
    text.replace(at, colon + 3 - at, std::string(n, text.at(colon + 1)));
    at += n;
  }
  return text;
}

// How a binary run ended: its status ("exited with status 2", "timed out"), stdout and
// stderr.
struct Ended {
  std::string status;
  std::string out, err;
};

// Runs `argv` with stdin /dev/null and stdout/stderr in files under `dir`; kills it
// after 20 s (a hang is a failure of its own: FIFOs once hung storbed forever).
Ended RunBinary(const std::vector<std::string>& argv, const std::string& dir,
                const std::string& tag) {
  const std::string out = dir + "/" + tag + ".stdout", err = dir + "/" + tag + ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return {"could not start: " + std::string(strerror(rc)), "", ""};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return {"timed out after 20 s", testing::Slurp(out), testing::Slurp(err)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::string how = WIFEXITED(status)
                              ? "exited with status " + std::to_string(WEXITSTATUS(status))
                              : "killed by signal " + std::to_string(WTERMSIG(status));
  return {how, testing::Slurp(out), testing::Slurp(err)};
}

void MakeInput(const InputFile& f, const std::string& dir) {
  const std::string path = dir + "/" + f.path;
  fs::create_directories(fs::path(path).parent_path());
  switch (f.kind) {
    case InputFile::Kind::Text: std::ofstream(path) << Expand(f.text, dir); break;
    case InputFile::Kind::Fifo: ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << path; break;
    case InputFile::Kind::Dir: fs::create_directories(path); break;
    case InputFile::Kind::Sparse:
      std::ofstream(path).close();
      ASSERT_EQ(truncate(path.c_str(), 16 << 20), 0) << path;  // all hole, no data
      break;
    case InputFile::Kind::Symlink:
      fs::create_symlink(Expand(f.text, dir), path);
      break;
  }
}

// The bytes of `text` that would reach a terminal raw: control characters other than
// the line feed (a name holding ESC [ 2 J once cleared the user's screen).
std::string RawControlCharacters(const std::string& text) {
  std::string found;
  for (const unsigned char c : text) {
    if ((c >= 0x20 && c != 0x7f) || c == '\n') continue;
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    found += hex;
  }
  return found;
}

// One line of `text` equals `line`.
bool HasLine(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// Built once per process. The rows are passed by index: some hold megabytes of input, and
// gtest copies a parameter for every test it registers, which made each test process (one
// per row and per VM test) spend 0.4 s starting.
const std::vector<BadInput>& AllCases() {
  static const std::vector<BadInput> all = [] {
    std::vector<BadInput> rows = testing::RunInputCases();
    for (auto& c : testing::ToolInputCases()) rows.push_back(std::move(c));
    return rows;
  }();
  return all;
}

class BadInputTable : public ::testing::TestWithParam<size_t> {};

TEST_P(BadInputTable, ExitsTwoWithItsExactMessage) {
  const BadInput& c = AllCases().at(GetParam());
  const std::string dir = testing::ScratchDir("bad-table-" + c.name);
  fs::create_directories(dir + "/work");
  for (const auto& f : c.files) MakeInput(f, dir);
  std::vector<std::string> argv;
  for (const auto& a : c.argv) argv.push_back(Expand(a, dir));
  argv[0] = argv[0] == "storbed-agent" ? testing::AgentPath() : testing::CliPath();
  const std::string message = Expand(c.message, dir);

  std::vector<std::vector<std::string>> runs = {argv};
  // A dry run's refusal must be the real run's too (issue 15: "--dry-run says valid").
  const auto dry = std::find(argv.begin(), argv.end(), "--dry-run");
  if (c.argv[1] == "run" && dry != argv.end()) {
    std::vector<std::string> real(argv.begin(), dry);
    real.insert(real.end(), {"--out", dir + "/out"});
    real.insert(real.end(), dry + 1, argv.end());
    runs.push_back(real);
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE(i == 0 ? "as given" : "as a real run");
    const Ended e = RunBinary(runs[i], dir, "run" + std::to_string(i));
    EXPECT_EQ(e.status, "exited with status 2") << e.err;
    EXPECT_TRUE(HasLine(e.err, message)) << "expected the line:\n" << message << "\ngot:\n" << e.err;
    EXPECT_EQ(RawControlCharacters(e.err), "") << e.err;
    EXPECT_EQ(RawControlCharacters(e.out), "") << e.out;
    if (e.status != "exited with status 2") break;  // a real run of accepted input may boot
  }
  // A refusal loses nothing: every input file is as it was.
  for (const auto& f : c.files) {
    if (f.kind == InputFile::Kind::Text) {
      EXPECT_EQ(testing::Slurp(dir + "/" + f.path), Expand(f.text, dir)) << f.path << " changed";
    }
  }
  EXPECT_FALSE(fs::exists(dir + "/out")) << "a refused run made its out dir";
  EXPECT_TRUE(fs::is_empty(dir + "/work")) << "a refused run left something in its work dir";
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputTable, ::testing::Range<size_t>(0, AllCases().size()),
                         [](const auto& info) { return AllCases().at(info.param).name; });

}  // namespace bad_input_table_test
}  // namespace storbed

// The exit codes as documented: README.md's table and the man pages' EXIT STATUS are
// common/exit_codes.h's table, and each error kind maps to the code the table gives it.
#include "exit_codes.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "backend/interrupt.h"
#include "cli/cli.h"
#include "test_paths.h"

namespace storbed {
namespace exit_codes_test {  // named, not anonymous: a unity build joins files

struct DocRow {
  int code;
  std::string meaning;
  bool operator==(const DocRow& o) const { return code == o.code && meaning == o.meaning; }
};

void PrintTo(const DocRow& r, std::ostream* os) { *os << r.code << " | " << r.meaning; }

// The rows "| 2 | Bad input: ... |" of the first table after README.md's "Exit codes" line.
std::vector<DocRow> ReadmeRows() {
  std::ifstream in(TestSourceDir() + "/README.md");
  std::vector<DocRow> rows;
  bool section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Exit codes", 0) == 0) section = true;
    if (!section) continue;
    if (line.rfind("|", 0) != 0) {
      if (!rows.empty()) break;  // the table ended
      continue;
    }
    const size_t bar = line.find('|', 1);
    std::string code = line.substr(1, bar - 1), meaning = line.substr(bar + 1);
    auto trim = [](std::string s) {
      while (!s.empty() && (s.back() == ' ' || s.back() == '|')) s.pop_back();
      while (!s.empty() && s.front() == ' ') s.erase(0, 1);
      return s;
    };
    code = trim(code);
    if (code.empty() || !std::isdigit(static_cast<unsigned char>(code[0])))
      continue;  // the header and the alignment row
    rows.push_back({std::stoi(code), trim(meaning)});
  }
  return rows;
}

std::vector<DocRow> CodeRows() {
  std::vector<DocRow> rows;
  for (const ExitCodeRow& r : kExitCodes) rows.push_back({r.code, r.meaning});
  return rows;
}

TEST(ExitCodeTableTest, ReadmeTableIsExitCodesHeaderRowByRow) {
  EXPECT_EQ(ReadmeRows(), CodeRows());
}

TEST(ExitCodeTableTest, EveryNamedConstantIsARowOfTheTable) {
  std::vector<int> codes;
  for (const ExitCodeRow& r : kExitCodes) codes.push_back(r.code);
  EXPECT_EQ(codes,
            (std::vector<int>{kExitOk, kExitFailed, kExitBadInput, kExitRunsFailed, kExitWorse,
                              kExitNotComparable, kExitCannotJudge, kExitInterrupted}));
}

TEST(ExitCodeTableTest, TheManPageListsEveryCodeOfTheTable) {
  const char* argv[] = {"storbed", "manpage", "storbed-compare"};
  ::testing::internal::CaptureStdout();
  const int exit = RunMain(3, const_cast<char**>(argv));
  const std::string page = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(exit, kExitOk);
  const size_t section = page.find(".SH EXIT STATUS\n");
  ASSERT_NE(section, std::string::npos) << page;
  for (const ExitCodeRow& r : kExitCodes)
    EXPECT_NE(page.find(".TP\n" + std::to_string(r.code) + "\n", section), std::string::npos)
        << r.code;
}

TEST(ErrorKindTest, EachKindHasTheCodeTheTableGivesIt) {
  EXPECT_EQ(ExitCodeFor(ErrorKind::BadInput), kExitBadInput);
  EXPECT_EQ(ExitCodeFor(ErrorKind::Host), kExitFailed);
  EXPECT_EQ(ExitCodeFor(ErrorKind::Internal), kExitFailed);
  EXPECT_EQ(ExitCodeFor(ErrorKind::Interrupted), kExitInterrupted);
}

TEST(ErrorKindTest, AThrownErrorSaysItsKindAndStandardErrorsMapByWhatTheyMean) {
  EXPECT_EQ(KindOf(Error(ErrorKind::Host, "disk full")), ErrorKind::Host);
  EXPECT_EQ(KindOf(InterruptedError()), ErrorKind::Interrupted);
  EXPECT_EQ(KindOf(std::invalid_argument("--noise: lots")), ErrorKind::BadInput);
  EXPECT_EQ(KindOf(std::system_error(std::make_error_code(std::errc::io_error), "read")),
            ErrorKind::Host);
  EXPECT_EQ(KindOf(std::runtime_error("unexpected")), ErrorKind::Internal);
  EXPECT_EQ(KindOf(std::out_of_range("vector")), ErrorKind::Internal);
}

}  // namespace exit_codes_test
}  // namespace storbed

#include "input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "strict_json.h"

namespace storbed {
namespace input_file_test {  // named, not anonymous: a unity build joins files

std::string Message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(InputFileTest, ReadsARegularFile) {
  const std::string path = ::testing::TempDir() + "/input-file-ok";
  std::ofstream(path) << "{}";
  EXPECT_EQ(ReadInputFile(path, "scenario file"), "{}");
  unlink(path.c_str());
}

TEST(InputFileTest, DevZeroIsRefusedAsACharacterDeviceInsteadOfFillingMemory) {
  EXPECT_EQ(Message([] { ReadInputFile("/dev/zero", "scenario file"); }),
            "/dev/zero: the scenario file is a character device, not a regular file");
}

TEST(InputFileTest, AFifoIsRefusedAtOnceInsteadOfHanging) {
  const std::string path = ::testing::TempDir() + "/input-file-fifo-" + std::to_string(getpid());
  unlink(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(Message([&] { ReadInputFile(path, "fio job file"); }),
            path + ": the fio job file is a FIFO, not a regular file");
  unlink(path.c_str());
}

TEST(InputFileTest, ADirectoryAndAMissingFileAreNamed) {
  EXPECT_EQ(Message([] { ReadInputFile("/", "inventory"); }),
            "/: the inventory is a directory, not a regular file");
  EXPECT_EQ(Message([] { ReadInputFile("/nonexistent/x.json", "scenario file"); }),
            "/nonexistent/x.json: the scenario file cannot be opened: No such file or directory");
}

TEST(InputFileTest, AFileAboveTheLimitIsRefused) {
  const std::string path = ::testing::TempDir() + "/input-file-big";
  std::ofstream(path) << std::string((1 << 20) + 1, ' ');
  EXPECT_EQ(Message([&] { ReadInputFile(path, "scenario file", 1 << 20); }),
            path + ": the scenario file is larger than 1 MiB, the limit for it");
  unlink(path.c_str());
}

TEST(StrictJsonTest, ADuplicateKeyIsRefusedWithItsPlace) {
  EXPECT_EQ(Message([] { ParseJsonNoDuplicateKeys(R"({"name": "a", "name": "b"})"); }),
            "key \"name\" appears twice in one object (in the top level)");
  EXPECT_EQ(Message([] {
              ParseJsonNoDuplicateKeys(
                  R"({"disk": {"size": "1m"}, "jobs": [{"bs": 1}, {"bs": 4096, "bs": 512}]})");
            }),
            "key \"bs\" appears twice in one object (in jobs[1])");
  EXPECT_EQ(Message([] { ParseJsonNoDuplicateKeys(R"({"disk": {"size": 1, "size": 2}})"); }),
            "key \"size\" appears twice in one object (in disk)");
}

TEST(StrictJsonTest, EqualKeysInDifferentObjectsAreFine) {
  const auto doc = ParseJsonNoDuplicateKeys(R"({"jobs": [{"name": "a"}, {"name": "b"}],
                                                "name": "s"})");
  EXPECT_EQ(doc["jobs"][1]["name"], "b");
  EXPECT_EQ(Message([] { ParseJsonNoDuplicateKeys("{"); }).rfind("not valid JSON: ", 0), 0u);
}

}  // namespace input_file_test
}  // namespace storbed

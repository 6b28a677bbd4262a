#include "debian_image.h"

#include <chrono>

#include "backend/child_process.h"
#include "test_env.h"

namespace storbed::testing {

std::string TrimmedLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string CachedDebianImageDir(const std::string& scratch,
                                 const std::vector<std::string>& options, std::string* why) {
  if (ProgramPath("mmdebstrap").empty()) {
    *why = "mmdebstrap is not installed (apt-get install mmdebstrap)";
    return "";
  }
  const std::string log = scratch + "/make-image.log";
  std::vector<std::string> argv = {std::string(STORBED_SOURCE_DIR) +
                                   "/scripts/make-debian-image.sh"};
  argv.insert(argv.end(), options.begin(), options.end());
  ChildProcess script = ChildProcess::Start(argv, log);
  // A first build downloads ~200 MB and installs a kernel: minutes; a cached one is instant.
  if (!script.WaitFor(std::chrono::minutes(30))) {
    script.Terminate(std::chrono::seconds(5));
    *why = "make-debian-image.sh did not finish in 30 min";
    return "";
  }
  const std::string out = Slurp(log);
  if (!script.ExitedSuccessfully()) {
    *why = "make-debian-image.sh " + script.ExitDescription() + ": " + out;
    return "";
  }
  // Its last line is the directory.
  const std::string text = TrimmedLine(out);
  return text.substr(text.rfind('\n') + 1);
}

}  // namespace storbed::testing

// Test helper: a report page opened in headless Chromium (Debian's `chromium`), as a
// reader's browser would, to see its DOM, its console and a screenshot.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "backend/child_process.h"
#include "test_env.h"
#include "test_paths.h"

namespace storbed::testing {

// The chromium binary from PATH, "" when it is not installed.
inline std::string ChromiumPath() {
  for (const char* name : {"chromium", "chromium-browser"})
    if (std::string path = ProgramPath(name); !path.empty()) return path;
  return "";
}

// Chromium's log of `action` ("--dump-dom", "--screenshot=FILE") on the page `html`; the
// DOM dump is in it. Chromium logs every console message, a page's errors included, as
// CONSOLE(...). Its own profile under `scratch` keeps it off the user's.
inline std::string OpenInChromium(const std::string& chromium, const std::string& html,
                                  const std::string& action, const std::string& scratch,
                                  const std::string& log) {
  // As root Chromium needs --no-sandbox.
  ChildProcess browser = ChildProcess::Start(
      {chromium, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
       "--user-data-dir=" + scratch + "/chromium-profile", "--window-size=1280,4000", action,
       "file://" + html},
      log);
  EXPECT_TRUE(browser.WaitFor(std::chrono::minutes(2))) << "chromium " << action;
  EXPECT_EQ(browser.ExitDescription(), "exited with status 0") << Slurp(log);
  return Slurp(log);
}

// The directory tests leave artifacts in for a person to look at (screenshots).
inline std::string TestArtifactsDir() {
  const std::string dir = TestBinaryDir() + "/test-artifacts";
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace storbed::testing

#include "backend/interrupt.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

namespace storbed {
namespace {

TEST(InterruptTest, SignalSetsFlagAndThrowIfInterruptedThrows) {
  InstallInterruptHandlers();
  ClearInterrupted();
  EXPECT_FALSE(Interrupted());
  EXPECT_NO_THROW(ThrowIfInterrupted());
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_TRUE(Interrupted());
  EXPECT_THROW(ThrowIfInterrupted(), InterruptedError);
  ClearInterrupted();
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_TRUE(Interrupted());
  ClearInterrupted();
  EXPECT_FALSE(Interrupted());
}

// Regression: SIGHUP, SIGUSR1 and SIGALRM killed storbed without cleanup (issue 38): each
// fatal signal a terminal or a user sends now sets the flag, and the record names it.
TEST(InterruptTest, EveryFatalSignalSetsTheFlagAndIsNamed) {
  InstallInterruptHandlers();
  const std::pair<int, const char*> cases[] = {
      {SIGINT, "SIGINT"},   {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"},  {SIGQUIT, "SIGQUIT"},
      {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGALRM, "SIGALRM"}};
  for (const auto& [sig, name] : cases) {
    SCOPED_TRACE(name);
    ClearInterrupted();
    EXPECT_EQ(InterruptedRunText(), "interrupted (a signal)");
    ASSERT_EQ(raise(sig), 0);
    EXPECT_TRUE(Interrupted());
    EXPECT_EQ(InterruptedRunText(), std::string("interrupted (") + name + ")");
    // A second signal does not rename the first.
    ASSERT_EQ(raise(sig == SIGHUP ? SIGTERM : SIGHUP), 0);
    EXPECT_EQ(InterruptSignalName(), name);
  }
  ClearInterrupted();
}

TEST(InterruptTest, HandlersHaveNoSaRestart) {
  InstallInterruptHandlers();
  for (int sig : kInterruptSignals) {
    struct sigaction old {};
    ASSERT_EQ(sigaction(sig, nullptr, &old), 0);
    EXPECT_EQ(old.sa_flags & SA_RESTART, 0) << "signal " << sig;
    EXPECT_NE(old.sa_handler, SIG_DFL);
  }
}

TEST(InterruptTest, BlockingReadReturnsEintr) {
  InstallInterruptHandlers();
  ClearInterrupted();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  // SIGINT lands on this thread while read() blocks; without SA_RESTART read gives up.
  pthread_t self = pthread_self();
  std::thread killer([self] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    pthread_kill(self, SIGINT);
  });
  char c;
  ssize_t n = read(fds[0], &c, 1);
  int err = errno;
  killer.join();
  EXPECT_EQ(n, -1);
  EXPECT_EQ(err, EINTR);
  EXPECT_TRUE(Interrupted());
  ClearInterrupted();
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace storbed

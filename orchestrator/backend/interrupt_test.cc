#include "backend/interrupt.h"

#include <signal.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

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

TEST(InterruptTest, HandlersHaveNoSaRestart) {
  InstallInterruptHandlers();
  for (int sig : {SIGINT, SIGTERM}) {
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

// Log lines from threads that run side by side (one per host slot): each thread writes
// through its own LineLog, which hands only whole lines to the shared LogSink, so the
// lines of two hosts never interleave mid-line; a prefix ("[lab1] ") says whose line it is.
#pragma once

#include <functional>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>

namespace storbed {

// The stream every LineLog ends in. Thread-safe. With a status (a terminal's progress
// line), every line is written over the status, which is drawn again below it.
class LogSink {
 public:
  explicit LogSink(std::ostream& out) : out_(out) {}
  // Writes `line` (which ends in '\n') and flushes, under the sink's lock.
  void WriteLine(const std::string& line);
  // The status line's source, or nullptr for none (the last status is erased).
  void SetStatus(std::function<std::string()> status);
  // Draws the status again in place.
  void RedrawStatus();

 private:
  void DrawStatusLocked();
  std::mutex mu_;
  std::ostream& out_;
  std::function<std::string()> status_;
};

// An ostream for one thread. Text is buffered until '\n' (std::flush and std::endl do not
// emit a partial line); an unterminated last line is emitted on destruction.
class LineLog : public std::ostream {
 public:
  LineLog(LogSink& sink, std::string prefix);
  ~LineLog() override;
  LineLog(const LineLog&) = delete;
  LineLog& operator=(const LineLog&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    Buffer(LogSink& sink, std::string prefix) : sink_(sink), prefix_(std::move(prefix)) {}
    void EmitRest();

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;

   private:
    void Put(char c);
    LogSink& sink_;
    std::string prefix_;
    std::string line_;
  };
  Buffer buffer_;
};

}  // namespace storbed

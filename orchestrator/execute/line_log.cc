#include "execute/line_log.h"

namespace storbed {

namespace {
// Carriage return and "erase to the end of the line" (ECMA-48 EL).
constexpr const char* kClearLine = "\r\033[K";
}  // namespace

void LogSink::WriteLine(const std::string& line) {
  std::lock_guard lock(mu_);
  if (status_) out_ << kClearLine;
  out_ << line;
  DrawStatusLocked();
  out_ << std::flush;
}

void LogSink::SetStatus(std::function<std::string()> status) {
  std::lock_guard lock(mu_);
  if (status_ && !status) out_ << kClearLine << std::flush;
  status_ = std::move(status);
}

void LogSink::RedrawStatus() {
  std::lock_guard lock(mu_);
  if (!status_) return;
  out_ << kClearLine;
  DrawStatusLocked();
  out_ << std::flush;
}

void LogSink::DrawStatusLocked() {
  if (status_) out_ << status_();
}

void LineLog::Buffer::Put(char c) {
  line_ += c;
  if (c != '\n') return;
  sink_.WriteLine(prefix_ + line_);
  line_.clear();
}

void LineLog::Buffer::EmitRest() {
  if (!line_.empty()) Put('\n');
}

LineLog::Buffer::int_type LineLog::Buffer::overflow(int_type c) {
  if (!traits_type::eq_int_type(c, traits_type::eof())) Put(traits_type::to_char_type(c));
  return traits_type::not_eof(c);
}

std::streamsize LineLog::Buffer::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) Put(s[i]);
  return n;
}

// The buffer is a member, built after the ostream base: hand it over once it exists.
LineLog::LineLog(LogSink& sink, std::string prefix)
    : std::ostream(nullptr), buffer_(sink, std::move(prefix)) {
  rdbuf(&buffer_);
}

LineLog::~LineLog() { buffer_.EmitRest(); }

}  // namespace storbed

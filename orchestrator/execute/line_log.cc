#include "execute/line_log.h"

namespace storbed {

void LogSink::WriteLine(const std::string& line) {
  std::lock_guard lock(mu_);
  out_ << line << std::flush;
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

// One rule for every name the user gives that becomes part of a file, a directory, a run
// id or a guest's name: the scenario, its jobs, fio sections and inventory hosts. Checked
// where the name is parsed, so a dry run refuses what the real run could not use.
#pragma once

#include <string>

namespace storbed {

inline constexpr size_t kMaxNameLength = 64;

// "" when `name` is 1..64 characters of letters, digits, '.', '_' and '-' beginning with
// a letter or digit; else the reason, with the name quoted and escaped (control and
// non-ASCII characters as \uXXXX) so the message itself prints safely.
std::string NameProblem(const std::string& name);

// True when `text` holds a C0 control character, DEL, or a C1 control (U+0080..U+009F in
// UTF-8): any of them printed raw can move the cursor or clear the user's terminal.
bool HasControlCharacter(const std::string& text);

// `text` with each control character (as HasControlCharacter) written as \u00XX, for a
// message that quotes user text in its own way ('...').
std::string EscapedControlCharacters(const std::string& text);

// `text` as a JSON string: quoted, control and non-ASCII characters escaped, at most
// a bounded prefix (common/quoted_value.h).
std::string QuotedForMessage(const std::string& text);

// "" when `name` is empty (leave the scheduler) or could name a kernel IO scheduler
// (lowercase letters, digits, '-' and '_'); else the reason. The agent writes it to
// queue/scheduler, so anything else would pass the dry run and fail in the guest.
std::string SchedulerNameProblem(const std::string& name);

// `name` with every character the rule refuses replaced by '-', cut to 64 characters,
// "scenario" when nothing is left (a fio file's stem becomes the scenario name).
std::string SanitizedName(const std::string& name);

}  // namespace storbed

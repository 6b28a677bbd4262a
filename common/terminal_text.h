// Text from results, scenarios and guests on its way to a terminal or a text report: a job
// name in a tampered results.json must not be able to move the cursor, retitle the window or
// rewrite earlier lines.
#pragma once

#include <string>
#include <string_view>

namespace storbed {

// `text` with every control character but newline and tab written out: C0 and DEL as
// "\xNN", the C1 controls (UTF-8 U+0080..U+009F, which some terminals read as ESC [) as
// "\uNNNN". Everything else, UTF-8 included, is left as it is.
std::string EscapeControlChars(std::string_view text);

}  // namespace storbed

// `storbed run --fio-args '...'`: a fio command line as pasted (from a mail, a PR, a shell
// history) turned into the job file fio itself would build from it, for fio_import.
#pragma once

#include <string>
#include <vector>

#include "scenario/fio_import.h"

namespace storbed {

// The name --fio-args jobs carry in messages instead of a file name.
inline constexpr const char* kFioArgsSource = "--fio-args";

// Options before the first --name go to [global], as fio applies them to every job; each
// --name=X starts job [X]; without any --name the options are one job, [fio], as in fio.
// "--key value" is "--key=value" when the next word is no option. Quotes and backslashes are undone as a shell would; a leading
// "$", "./fio", "fio" or ".../fio" is skipped, and whatever follows an unquoted |, ;, &&,
// > or # (a pipe to grep, a comment) is not fio's. Throws ScenarioError naming --fio-args,
// the token and the reason.
std::string FioCommandLineToJobFile(const std::string& command_line);

// The fio job the run imports: --fio FILE or --fio-args LINE (exactly one non-empty).
FioImport ImportFioSource(const std::string& fio_path, const std::string& fio_args,
                          const std::vector<std::string>& targets,
                          uint64_t max_runs = kDefaultMaxRuns);

}  // namespace storbed

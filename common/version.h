#pragma once

namespace storbed {
// Defined in the generated version.cc (cmake/git_revision.cmake). Only that one file is
// compiled again when HEAD moves: with the strings here, every unity chunk that prints a
// version missed ccache after each commit (about 80 s of a clean-clone build).
extern const char* const kStorbedVersion;
extern const char* const kGitRevision;
}  // namespace storbed
